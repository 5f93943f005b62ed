// /play: start a match against a bot, and the board of /play/{id} (docs/play.md).
// The session's token stays in this tab's sessionStorage; the board follows the session's
// stream (Server-Sent Events, or a long poll without EventSource) and answers through
// POST /v1/play/{id}/act. Everything shown comes from the person's own seat's observation.
(function () {
  "use strict";

  function fill(text, values) {
    return text.replace(/%\((\w+)\)[sd]/g, function (_, key) {
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

  // --- /play/{id}: the board ---------------------------------------------------------------
  function startBoard(board) {
    var words = JSON.parse(document.getElementById("play-words").textContent);
    var T = words.text;
    var id = board.getAttribute("data-play");
    var token = sessionStorage.getItem("play:" + id);
    var $ = function (name) { return document.getElementById(name); };
    var status = $("status");
    var current = null;
    var sending = false;
    var deadline = null;
    var sena = null;  // the seña chosen to go with the next action (2v2)

    if (!token) {
      status.textContent = T.no_token;
      $("leave").hidden = true;
      return;
    }

    function cardName(card) { return words.cards[card] || card; }
    function actionName(action) { return words.actions[action] || action; }

    function tick() {
      var clock = $("clock");
      if (deadline === null) { clock.textContent = ""; return; }
      var left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      clock.textContent = fill(T.clock, { s: left });
    }

    function act(choice) {
      if (!current || !current.turn || sending) return;
      sending = true;
      var body = { number: current.turn.number, action: choice.action };
      if (choice.card) body.card = choice.card;
      if (sena) body.sena = sena;
      fetch("/v1/play/" + id + "/act", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Play-Token": token },
        body: JSON.stringify(body)
      }).then(function (response) {
        sending = false;
        if (response.status === 200) {
          sena = null;
          return response.json().then(render);
        }
        return problemDetail(response).then(function (detail) {
          status.textContent = fill(T.error, { detail: detail });
        });
      }, function (exc) {
        sending = false;
        status.textContent = fill(T.error, { detail: String(exc) });
      });
    }

    function button(label, aria, choice, enabled) {
      var b = el("button", "btn play-choice", label);
      b.type = "button";
      if (aria) b.setAttribute("aria-label", aria);
      b.disabled = !enabled;
      if (choice) b.addEventListener("click", function () { act(choice); });
      return b;
    }

    function who(seat, obs) {
      if (seat === obs.seat) return T.you;
      if (seat % 2 === obs.seat % 2) return T.partner;
      return current ? current.opponent.name : T.bot;
    }

    function renderSenas(view, legal) {
      var obs = view.observation;
      var box = $("senas-box");
      box.hidden = !(obs && obs.players === 4);
      if (box.hidden) return;
      var row = $("senas");
      row.replaceChildren();
      [null].concat(Object.keys(words.senas)).forEach(function (key) {
        var b = el("button", "btn play-sena", key === null ? T.no_sena : words.senas[key]);
        b.type = "button";
        b.disabled = legal.length === 0;
        b.setAttribute("aria-pressed", String(sena === key));
        b.addEventListener("click", function () {
          sena = key;
          row.querySelectorAll("button").forEach(function (other, index) {
            other.setAttribute("aria-pressed", String(other === b));
          });
        });
        row.appendChild(b);
      });
      var seen = [];
      obs.events.forEach(function (e) {
        if (e.type === "action" && e.sena && e.seat !== obs.seat) {
          var text = e.seat % 2 === obs.seat % 2
            ? fill(T.partner_sena, { sena: words.senas[e.sena] || e.sena })
            : fill(T.sena_caught, { who: who(e.seat, obs), sena: words.senas[e.sena] || e.sena });
          seen.push(text);
        }
      });
      $("partner-senas").textContent = seen.join(" · ");
    }

    function renderTable(obs, mine) {
      var table = $("table");
      table.replaceChildren();
      if (!obs) return;
      obs.rounds.forEach(function (plays, index) {
        var item = el("li", "board-round");
        item.appendChild(el("strong", null, fill(T.round, { n: index + 1 }) + ": "));
        plays.forEach(function (play, k) {
          if (k) item.appendChild(document.createTextNode("; "));
          item.appendChild(el("span", "board-play", fill(T.played, { who: who(play[0], obs), card: cardName(play[1]) })));
        });
        table.appendChild(item);
      });
    }

    function lastCall(obs) {
      if (!obs) return "";
      for (var i = obs.events.length - 1; i >= 0; i--) {
        var e = obs.events[i];
        if (e.type === "action" && e.action !== "play") {
          return fill(T.said, { who: who(e.seat, obs), word: actionName(e.action) });
        }
      }
      return "";
    }

    function render(view) {
      if (view.version < (current ? current.version : -1)) return;  // an older answer
      current = view;
      var obs = view.observation;
      var focusedCard = document.activeElement && document.activeElement.classList.contains("play-choice");
      $("opponent").textContent = view.partner
        ? view.partner.name + " & " + T.you + " vs " + view.opponent.name
        : view.opponent.name;
      $("game-no").textContent = fill(T.game, { n: Math.max(1, view.game_number), of: view.games });
      if (obs) {
        var mine = obs.team, score = obs.score;
        $("score").textContent = fill(T.score, { you: score[mine], bot: view.opponent.name, them: score[1 - mine] });
      }
      renderTable(obs, obs ? obs.seat : -1);
      var turn = view.status === "playing" ? view.turn : null;
      var legal = turn ? turn.legal_actions : [];
      var hand = $("hand"), calls = $("calls");
      hand.replaceChildren();
      calls.replaceChildren();
      (obs ? obs.cards : []).forEach(function (card, index) {
        var playable = legal.some(function (a) { return a.action === "play" && a.card === card; });
        var label = (index + 1) + ". " + cardName(card);
        hand.appendChild(button(label, fill(T.play_card, { card: cardName(card) }), { action: "play", card: card }, playable));
      });
      legal.forEach(function (a) {
        if (a.action !== "play") calls.appendChild(button(actionName(a.action), null, a, true));
      });
      renderSenas(view, legal);
      board.setAttribute("data-turn", turn ? String(turn.number) : "");
      deadline = turn ? Date.now() + turn.clock_left_ms : null;
      tick();
      var said = lastCall(obs);
      if (view.status !== "playing") {
        status.textContent = said;
        finish(view);
      } else if (turn) {
        status.textContent = (said ? said + ". " : "") + T.your_turn;
        if (focusedCard || !board.contains(document.activeElement) || document.activeElement === document.body) {
          var first = board.querySelector(".play-choice:not([disabled])");
          if (first && focusedCard) first.focus();
        }
      } else {
        status.textContent = obs ? T.their_turn : T.waiting;
      }
    }

    function finish(view) {
      deadline = null;
      tick();
      $("leave").hidden = true;
      var end = $("end");
      end.replaceChildren();
      var o = view.outcome;
      var sentence = view.status === "abandoned" ? T.abandoned
        : !o ? "" : o.person_won ? T.won : o.winner_side === null ? T.draw : T.lost;
      end.appendChild(document.createTextNode(sentence + " "));
      if (view.replay_url) {
        var link = el("a", null, T.replay);
        link.href = view.replay_url;
        end.appendChild(link);
        end.appendChild(document.createTextNode(" · "));
      }
      var again = el("a", null, T.again);
      again.href = "/play";
      end.appendChild(again);
      if (source) source.close();
    }

    var source = null;
    function follow() {
      var url = "/v1/play/" + id + "/stream?token=" + encodeURIComponent(token);
      if (window.EventSource) {
        source = new EventSource(url);
        var onView = function (event) { render(JSON.parse(event.data)); };
        source.addEventListener("view", onView);
        source.addEventListener("end", onView);
        return;
      }
      var poll = function (after) {
        var query = after === null ? "" : "?after=" + after;
        fetch("/v1/play/" + id + query, { headers: { "X-Play-Token": token } })
          .then(function (r) { return r.json(); })
          .then(function (view) {
            render(view);
            if (view.status === "playing") poll(view.version);
          }, function () { setTimeout(function () { poll(after); }, 2000); });
      };
      poll(null);
    }

    $("leave").addEventListener("click", function () {
      fetch("/v1/play/" + id + "/leave", { method: "POST", headers: { "X-Play-Token": token } })
        .then(function (r) { return r.json(); }).then(render);
    });

    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      var n = "123".indexOf(event.key);
      if (n < 0) return;
      var cards = $("hand").querySelectorAll("button");
      if (cards[n] && !cards[n].disabled) {
        event.preventDefault();
        cards[n].focus();
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
    if (board) startBoard(board);
  });
})();
