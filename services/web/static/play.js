// /play: start a match against a bot, and the table of /play/{id} (docs/play.md).
// The session's token stays in this tab's sessionStorage. The table is the one of the replays
// and live matches (static/table.js): it follows the session's stream (Server-Sent Events, or
// a long poll without EventSource), folds the person's log (every event their seat saw, as it
// happened) and shows each event in turn, a hand's summary until the person goes on; the
// person answers through POST /v1/play/{id}/act. Everything shown comes from the person's own
// seat's view: the server never sends another seat's unplayed cards.
(function () {
  "use strict";

  var STEP_MS = 450; // between two events shown (a bot's card, then its truco)

  function fill(text, values) {
    return String(text).replace(/%\((\w+)\)[sd]/g, function (_, key) {
      return values[key] === undefined ? "" : String(values[key]);
    });
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function problemDetail(response) {
    return response.json().then(function (body) {
      return (body && body.detail) || String(response.status);
    }, function () { return String(response.status); });
  }

  // --- /play: the form ---------------------------------------------------------------------
  function startForm(form) {
    var error = document.getElementById("play-error");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var data = new FormData(form);
      var body = {
        players: Number(data.get("players") || 2),
        points_to_win: Number(data.get("points_to_win") || 15),
        flor: data.get("flor") === "true"
      };
      if (data.get("bot_id")) body.bot_id = Number(data.get("bot_id"));
      var button = form.querySelector("button[type=submit]");
      button.disabled = true;
      fetch("/v1/play", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body)
      }).then(function (response) {
        if (response.status !== 201) {
          return problemDetail(response).then(function (detail) {
            error.textContent = detail;
            button.disabled = false;
          });
        }
        return response.json().then(function (created) {
          sessionStorage.setItem("play:" + created.id, created.token);
          window.location.assign("/play/" + created.id);
        });
      }, function (exc) {
        error.textContent = String(exc);
        button.disabled = false;
      });
    });
  }

  // --- /play/{id}: the table ---------------------------------------------------------------

  // two seats with one name are told apart (services/web/views/table_names.py)
  function toldApart(names) {
    var counts = {}, seen = {};
    names.forEach(function (n) { counts[n] = (counts[n] || 0) + 1; });
    return names.map(function (n) {
      if (counts[n] < 2) return n;
      seen[n] = (seen[n] || 0) + 1;
      return n + " (" + seen[n] + ")";
    });
  }

  function startBoard(board) {
    var T = window.TrucoTable;
    var W = T.pageWords();
    var P = JSON.parse(document.getElementById("play-words").getAttribute("data-words"));
    var id = board.getAttribute("data-play");
    var token = sessionStorage.getItem("play:" + id);
    var $ = function (name) { return document.getElementById(name); };
    var status = $("status");
    var view = null; // the latest view of the session
    var nextN = null; // the number of the next log item expected
    var game = 0; // the game on the table
    var ctx = null, fold = null;
    var sending = false;
    var deadline = null;
    var sena = null; // the seña chosen to go with the next action (2v2)
    var finished = false;
    var left = false; // the person left the table
    var source = null;
    var pacer = new T.Pacer(show, { stepMs: STEP_MS, holdMs: 0, hold: "person", onIdle: refresh, onHold: held });
    window.__trucoPlay = { idle: function () { return pacer.idle(); }, step: function () { return fold ? fold.step : -1; } };

    if (!token) {
      status.textContent = P.no_token;
      $("leave").hidden = true;
      return;
    }

    function cardName(card) { return W.cards[card] || card; }

    function contextFor(seating) {
      var players = seating.seats.length;
      var you = 0;
      seating.seats.forEach(function (s) { if (s.role === "you") you = s.seat; });
      var rivals = seating.seats.filter(function (s) { return s.role === "rival"; });
      var rivalNames = toldApart(rivals.map(function (s) { return s.name; }));
      var names = [];
      seating.seats.forEach(function (s) {
        if (s.role === "you") names[s.seat] = P.you;
        else if (s.role === "partner") names[s.seat] = fill(P.partner, { name: s.name });
        else names[s.seat] = rivalNames[rivals.indexOf(s)];
      });
      var teams = you % 2 === 0 ? [P.us, P.them] : [P.them, P.us];
      var around = players === 4 ? ["bottom", "right", "top", "left"] : ["bottom", "top"];
      var positions = [];
      for (var seat = 0; seat < players; seat++) positions.push(around[(seat - you + players) % players]);
      return {
        players: players,
        seats: names.map(function (n) { return { name: n, id: null }; }),
        teams: teams,
        team_words: teams.map(function (t) { return t.toLowerCase(); }),
        you: you,
        target: view.rules.points_to_win,
        positions: positions,
        view: "seat" + you
      };
    }

    function newGame(number) {
      var seating = null;
      view.seating.forEach(function (s) { if (s.game === number) seating = s; });
      if (!seating) return false;
      game = number;
      ctx = contextFor(seating);
      fold = new T.Fold(ctx, W);
      T.buildTable($("table"), fold);
      var ours = [], theirs = [];
      ctx.seats.forEach(function (s, i) { (i % 2 === ctx.you % 2 ? ours : theirs).push(s.name); });
      $("opponent").textContent = fill(P.versus, { us: ours.join(" & "), them: theirs.join(" & ") });
      $("game-no").textContent = view.games > 1 ? fill(P.game, { n: number, of: view.games }) : "";
      return true;
    }

    // one item of the log onto the table (quiet: folded, not drawn)
    function show(item, quiet) {
      if (item.game !== game && !newGame(item.game)) return "decision";
      var step = fold.apply(item.event);
      if (!step) return "decision";
      if (!quiet) drawAll();
      return item.event.type;
    }

    function myTurn() {
      return !finished && view && view.status === "playing" && view.turn && pacer.idle() && fold &&
        view.observation && view.observation.seat === ctx.you;
    }

    function legalCard(card) {
      return myTurn() && view.turn.legal_actions.some(function (a) { return a.action === "play" && a.card === card; });
    }

    var drawOpts = {
      hand: function (seat, cards) {
        if (!ctx || seat !== ctx.you) return null;
        return cards.map(function (card, i) {
          if (!card) return T.backSvg(W.hidden);
          var name = cardName(card);
          return '<button type="button" class="card-btn" data-card="' + T.esc(card) + '" data-focus="card:' + T.esc(card) + '"' +
            ' aria-label="' + T.esc(fill(P.play_card, { card: name, n: i + 1 })) + '" aria-keyshortcuts="' + (i + 1) + '"' +
            (legalCard(card) ? "" : " disabled") + ">" + T.cardSvg(card, name) + '<span class="key" aria-hidden="true">' + (i + 1) + "</span></button>";
        }).join("");
      },
      tag: function (seat) {
        if (!view || view.status !== "playing" || !pacer.idle() || view.to_act !== seat) return "";
        return ' <span class="turn">' + T.esc(seat === ctx.you ? P.turn_you : P.turn_bot) + "</span>";
      }
    };

    function drawAll() {
      if (!fold) return;
      var focus = document.activeElement && document.activeElement.getAttribute ? document.activeElement.getAttribute("data-focus") : null;
      T.draw(fold, drawOpts);
      T.drawTimeline(fold, {});
      T.drawHands(fold, {});
      var hand = document.querySelector("#seat-" + ctx.you + " .hand");
      if (hand) {
        hand.id = "hand";
        hand.classList.add("mine");
        hand.setAttribute("role", "group");
        hand.setAttribute("aria-label", P.your_cards);
      }
      controls();
      if (focus) {
        var again = board.querySelector('[data-focus="' + focus + '"]:not([disabled])');
        if (again) again.focus();
        else if (myTurn()) focusFirst();
      }
    }

    function focusFirst() {
      var first = board.querySelector("#hand button:not([disabled]), #calls button:not([disabled])");
      if (first) first.focus();
    }

    function button(label, choice, focusKey) {
      var b = el("button", "btn play-choice", label);
      b.type = "button";
      b.setAttribute("data-focus", focusKey);
      b.addEventListener("click", function () { act(choice); });
      return b;
    }

    function controls() {
      var calls = $("calls");
      calls.replaceChildren();
      var mine = myTurn();
      var legal = mine ? view.turn.legal_actions : [];
      legal.forEach(function (a) {
        if (a.action !== "play") calls.appendChild(button(P.actions[a.action] || a.action, a, "call:" + a.action));
      });
      board.setAttribute("data-turn", mine ? String(view.turn.number) : "");
      renderSenas(mine);
      tick();
    }

    function renderSenas(mine) {
      var box = $("senas-box");
      box.hidden = finished || !(ctx && ctx.players === 4);
      if (box.hidden) return;
      var row = $("senas");
      row.replaceChildren();
      [null].concat(Object.keys(W.senas)).forEach(function (key) {
        var b = el("button", "btn play-sena", key === null ? P.no_sena : W.senas[key]);
        b.type = "button";
        b.disabled = !mine;
        b.setAttribute("data-focus", "sena:" + key);
        b.setAttribute("aria-pressed", String(sena === key));
        b.addEventListener("click", function () {
          sena = key;
          row.querySelectorAll("button").forEach(function (other) {
            other.setAttribute("aria-pressed", String(other === b));
          });
        });
        row.appendChild(b);
      });
      var seen = [];
      (view.observation ? view.observation.events : []).forEach(function (e) {
        if (e.type === "action" && e.sena && e.seat !== ctx.you) {
          seen.push(e.seat % 2 === ctx.you % 2 ? fill(P.partner_sena, { sena: W.senas[e.sena] || e.sena })
            : fill(P.sena_caught, { who: ctx.seats[e.seat].name, sena: W.senas[e.sena] || e.sena }));
        }
      });
      $("partner-senas").textContent = seen.join(" · ");
    }

    function tick() {
      var clock = $("clock");
      if (finished || !view || view.status !== "playing" || !fold) { clock.textContent = ""; return; }
      if (deadline !== null) {
        clock.textContent = fill(P.your_turn, { s: Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) });
      } else if (pacer.idle() && view.to_act !== null && view.to_act !== undefined && view.to_act !== ctx.you) {
        clock.textContent = fill(P.their_turn, { who: ctx.seats[view.to_act].name });
      } else {
        clock.textContent = "";
      }
    }

    function act(choice) {
      if (!myTurn() || sending) return;
      sending = true;
      var body = { number: view.turn.number, action: choice.action };
      if (choice.card) body.card = choice.card;
      if (sena) body.sena = sena;
      fetch("/v1/play/" + id + "/act?since=" + (nextN || 0), {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Play-Token": token },
        body: JSON.stringify(body)
      }).then(function (response) {
        sending = false;
        if (response.status === 200) {
          sena = null;
          return response.json().then(receive);
        }
        return problemDetail(response).then(function (detail) {
          status.textContent = fill(P.error, { detail: detail });
        });
      }, function (exc) {
        sending = false;
        status.textContent = fill(P.error, { detail: String(exc) });
      });
    }

    // a view from the stream, a poll or an answer: its log items go onto the table in order
    function receive(next) {
      if (!view || next.version >= view.version) {
        // the clock of the decision owed runs from when the server asked: shown at once,
        // even while the table still tells what came before (or a hand's summary waits)
        var turn = next.status === "playing" ? next.turn : null;
        if (!turn) deadline = null;
        else if (!view || !view.turn || view.turn.number !== turn.number) deadline = Date.now() + turn.clock_left_ms;
        view = next;
      }
      var items = next.log || [];
      if (nextN === null && items.length) {
        // the page opens mid-game: what came before the hand in play is folded at once
        var last = 0;
        items.forEach(function (item, i) { if (item.event.type === "hand_started" && item.game === items[items.length - 1].game) last = i; });
        items.slice(0, last).forEach(function (item) { show(item, true); });
        nextN = items[last].n;
        items = items.slice(last);
      }
      var fresh = [];
      items.forEach(function (item) {
        if (nextN !== null && item.n < nextN) return; // shown already
        if (nextN !== null && item.n > nextN) return catchUp();
        fresh.push(item);
        nextN = item.n + 1;
      });
      if (fresh.length) pacer.push(fresh);
      if (left && view.status !== "playing") {
        $("continue-box").hidden = true;
        pacer.flush(); // the person left: the end at once, not hand after hand
      } else if (!fresh.length && pacer.idle()) refresh();
      if (view.status !== "playing" && source) source.close();
    }

    function catchUp() {
      fetch("/v1/play/" + id + "?since=" + nextN, { headers: { "X-Play-Token": token } })
        .then(function (r) { return r.json(); }).then(receive);
    }

    function held() {
      controls();
      $("continue-box").hidden = false;
      $("continue").focus();
    }

    board.addEventListener("click", function (event) {
      var card = event.target.closest && event.target.closest(".card-btn");
      if (card && !card.disabled) act({ action: "play", card: card.getAttribute("data-card") });
    });

    $("continue").addEventListener("click", function () {
      $("continue-box").hidden = true;
      pacer.release();
      if (myTurn()) focusFirst();
    });

    // everything shown: whose turn it is, and the end once the match is over
    function refresh() {
      if (!view) return;
      if (fold) drawAll();
      if (view.status !== "playing") return finish();
      if (myTurn() && (!board.contains(document.activeElement) || document.activeElement === document.body)) focusFirst();
      status.textContent = "";
    }

    function finish() {
      if (finished) return;
      finished = true;
      deadline = null;
      tick();
      if (fold) drawAll();
      $("leave").hidden = true;
      $("senas-box").hidden = true;
      $("calls").replaceChildren();
      var end = $("end");
      end.replaceChildren();
      var o = view.outcome;
      var sentence = view.status === "abandoned" ? P.abandoned
        : !o ? "" : o.person_won ? P.won : o.winner_side === null ? P.draw : P.lost;
      end.appendChild(document.createTextNode(sentence + " "));
      if (view.status === "finished") {
        var link = el("a", null, P.replay);
        link.href = "/play/" + id + "/replay";
        end.appendChild(link);
        end.appendChild(document.createTextNode(" · "));
      }
      var again = el("a", null, P.again);
      again.href = "/play";
      end.appendChild(again);
      if (source) source.close();
    }

    function follow() {
      var url = "/v1/play/" + id + "/stream?token=" + encodeURIComponent(token);
      if (window.EventSource) {
        source = new EventSource(url);
        var onView = function (event) { receive(JSON.parse(event.data)); };
        source.addEventListener("view", onView);
        source.addEventListener("end", onView);
        return;
      }
      var poll = function (after) {
        var query = "?since=" + (nextN || 0) + (after === null ? "" : "&after=" + after);
        fetch("/v1/play/" + id + query, { headers: { "X-Play-Token": token } })
          .then(function (r) { return r.json(); })
          .then(function (next) {
            receive(next);
            if (next.status === "playing") poll(next.version);
          }, function () { setTimeout(function () { poll(after); }, 2000); });
      };
      poll(null);
    }

    $("leave").addEventListener("click", function () {
      left = true;
      fetch("/v1/play/" + id + "/leave?since=" + (nextN || 0), { method: "POST", headers: { "X-Play-Token": token } })
        .then(function (r) { return r.json(); }).then(receive);
    });

    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      var active = document.activeElement;
      if (event.key === "Enter" && !$("continue-box").hidden && (!active || active === document.body)) {
        event.preventDefault(); // a hand's summary: Enter goes on wherever the focus was lost
        $("continue").click();
        return;
      }
      var n = "123".indexOf(event.key);
      if (n < 0) return;
      var cards = document.querySelectorAll("#hand button");
      if (cards[n] && !cards[n].disabled) {
        event.preventDefault();
        cards[n].click();
      }
    });

    setInterval(tick, 1000);
    follow();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("play-form");
    if (form) startForm(form);
    var board = document.getElementById("board");
    if (board && window.TrucoTable) startBoard(board);
  });
})();
