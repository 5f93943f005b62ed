// Truco Arena pages: the only script. No inline code anywhere (the CSP forbids it).
// 1. Live pages (<main data-stream="URL">) follow the match's or tournament's Server-Sent
//    Events stream (docs/live.md) and apply each message in place: a line appended to the
//    play-by-play, a card moved, a score or a status cell changed; O(1) work per event.
//    Without EventSource, or when the stream fails, they poll (<main data-poll="URL"
//    data-version="V">): when the version changes <main> is fetched again and swapped.
// 2. The replay viewer of a finished match (#viewer[data-steps]) loads the game's steps once
//    and steps, plays and pauses in the page; the address follows the step.
// 3. In the replay viewer, the arrow keys step back and forward (P plays and pauses).
(function () {
  "use strict";
  var POLL_MS = 4000;
  var STEP_MS = 1000; // one step a second at 1×
  var ANNOUNCE_MS = 3000; // during autoplay, at most one announcement per 3 s

  // ------------------------------------------------------------------ shared helpers

  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  // "%(name)s" / "%(n)d" filled from values (the catalogues' Python format)
  function fmt(template, values) {
    return String(template).replace(/%\((\w+)\)[sd]/g, function (_, key) {
      return key in values ? String(values[key]) : "";
    });
  }

  function cardSvg(card, name, cls) {
    var rank = esc(card.slice(0, -1));
    var suit = esc(card.slice(-1));
    var label = esc(name || card);
    return '<svg class="card suit-' + suit + " " + (cls || "") + '" viewBox="0 0 60 90" role="img"' +
      ' aria-label="' + label + '" data-card="' + esc(card) + '"><title>' + label + "</title>" +
      '<rect class="face" x="1" y="1" width="58" height="88" rx="6"/>' +
      '<text class="rank" x="6" y="19">' + rank + "</text>" +
      '<use href="#suit-' + suit + '" x="10" y="27" width="40" height="40"/>' +
      '<text class="rank small" x="54" y="84" text-anchor="end">' + rank + "</text></svg>";
  }

  function backSvg(hidden) {
    var label = esc(hidden);
    return '<svg class="card back " viewBox="0 0 60 90" role="img" aria-label="' + label + '">' +
      "<title>" + label + '</title><rect class="face" x="1" y="1" width="58" height="88" rx="6"/>' +
      '<rect x="6" y="6" width="48" height="78" rx="3" fill="url(#card-back)"/></svg>';
  }

  function fromHtml(html) {
    var box = document.createElement("div");
    box.innerHTML = html;
    return box.firstElementChild;
  }

  function dataOf(element, name) {
    try { return JSON.parse(element.getAttribute(name) || "null"); } catch (e) { return null; }
  }

  // ------------------------------------------------------------------ polling (the fallback)

  function poll() {
    var main = document.getElementById("live");
    if (!main || !main.dataset.poll) return;
    fetch(main.dataset.poll, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (state) {
        if (!state || state.version === main.dataset.version) return schedule();
        if (state.live === false && main.dataset.kind === "match") return over().then(schedule);
        return swapMain().then(schedule);
      })
      .catch(schedule);
  }

  function swapMain(address) {
    return fetch(address || window.location.href, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("live");
        var main = document.getElementById("live");
        if (fresh && main) {
          main.replaceWith(document.adoptNode(fresh));
          markOverflow();
        }
        return doc;
      });
  }

  // A live match that ends is shown from its stored replay at the place the viewer had reached
  // (its game, its latest step), not from the first step of the first game: the address says
  // that place, and the replay player starts there.
  function placeAddress() {
    var viewer = document.getElementById("viewer");
    var count = document.getElementById("step-count");
    var url = new URL(window.location.href);
    if (!viewer || !count) return url;
    var seen = parseInt(count.textContent.split("/")[0], 10);
    url.searchParams.set("game", viewer.dataset.game || "1");
    if (seen > 0) url.searchParams.set("step", String(seen - 1));
    return url;
  }

  function over() {
    var url = placeAddress();
    window.history.replaceState(null, "", url.toString());
    return swapMain(url.toString()).then(function () {
      var viewer = document.getElementById("viewer");
      if (viewer && viewer.dataset.steps && window.fetch) replayPlayer = player(viewer);
    });
  }

  function schedule() {
    var main = document.getElementById("live");
    if (main && main.dataset.poll) window.setTimeout(poll, POLL_MS);
  }

  // ------------------------------------------------------------------ streams

  // Open the page's stream; on failure (no EventSource, a refused or broken stream) poll.
  function follow(main, handlers) {
    if (!window.EventSource) return schedule();
    var source = new EventSource(main.dataset.stream);
    var failures = 0;
    var fallen = false;
    function fallBack() {
      if (fallen) return;
      fallen = true;
      source.close();
      schedule();
    }
    source.onopen = function () { failures = 0; };
    source.onerror = function () {
      // CLOSED: refused (a 429, a 404); CONNECTING: the browser retries with Last-Event-ID
      failures += 1;
      if (source.readyState === EventSource.CLOSED || failures > 3) fallBack();
    };
    Object.keys(handlers).forEach(function (name) {
      source.addEventListener(name, function (message) {
        failures = 0;
        handlers[name](message, source);
      });
    });
    window.__trucoStream = source; // for the page's tests
  }

  // --- a live match -------------------------------------------------------------------

  function liveMatch(main) {
    var viewer = document.getElementById("viewer");
    var words = viewer ? dataOf(viewer, "data-words") : null;
    var seen = parseInt(main.dataset.seen || "0", 10); // the feed items the page was built from
    var game = viewer ? parseInt(viewer.dataset.game || "1", 10) : 0;
    var run = null;
    var lastSeat = {}; // seat -> its decision record (latency, fault) awaiting its action
    var rounds = 0;
    var handNow = words ? words.hand : 0;
    var open = words ? words.open_hand : null; // the score-by-hand summary of the hand so far

    function tantos(n) { return fmt(words.tanto[n === 1 ? 0 : 1], { num: n }); }
    function cut(text, n) { return text.length <= n + 5 ? text : text.slice(0, n - 1) + "…"; }

    var count = document.getElementById("step-count");
    var at = count ? count.textContent.split("/") : [];
    if (viewer && at.length === 2 && parseInt(at[0], 10) !== parseInt(at[1], 10)) {
      return schedule(); // looking back at an earlier step: the page stays there (and polls)
    }

    function seatName(seat) { return (words.seats && words.seats[seat]) || ("seat " + seat); }
    function team(t) { return words.teams[t]; }
    function cardName(c) { return words.cards[c] || c; }

    function timeline(kind, text, extra) {
      var list = document.querySelector("#timeline ol.timeline");
      if (!list) return;
      var old = list.querySelector("li.current");
      if (old) old.classList.remove("current");
      var li = document.createElement("li");
      li.className = "ev ev-" + kind + " current" + (extra && extra.fault ? " faulty" : "");
      li.innerHTML = "<span>" + esc(text) + "</span>" +
        (extra && extra.points ? ' <span class="pts">' + esc(extra.points) + "</span>" : "") +
        (extra && extra.fault ? ' <span class="fault-tag">' + esc(words.fault + " " + extra.fault) + "</span>" : "") +
        (extra && extra.say ? '<q class="say">' + esc(extra.say) + "</q>" : "");
      list.appendChild(li);
      list.scrollTop = list.scrollHeight;
      var caption = document.getElementById("caption");
      if (caption) caption.textContent = text;
      var count = document.getElementById("step-count");
      if (count) {
        var n = parseInt(count.textContent.split("/")[1] || "0", 10) + 1;
        count.textContent = n + " / " + n;
      }
    }

    function setScore(score) {
      [0, 1].forEach(function (t) {
        var cell = document.querySelector('#score strong[data-team="' + t + '"]');
        if (cell && cell.textContent !== String(score[t])) cell.textContent = String(score[t]);
      });
    }

    function handInfo(hand, round) {
      var info = document.querySelector("#score .handinfo");
      if (info) info.textContent = fmt(words.hand_n, { n: hand }) + " · " + fmt(words.round_n, { n: round });
    }

    function bubble(seat, text, record, say) {
      var box = document.getElementById("seat-" + seat);
      if (!box) return;
      document.querySelectorAll("#table .bubble.current").forEach(function (b) { b.classList.remove("current"); });
      var old = box.querySelector(".bubble");
      if (old) old.remove();
      var fault = record && record.fault ? words.faults[record.fault] || record.fault : null;
      var html = '<div class="bubble current' + (fault ? " faulty" : "") + '"><span class="word">' + esc(text) + "</span>" +
        (say ? '<q class="say">' + esc(say) + "</q>" : "") +
        (fault ? '<span class="fault-tag">' + esc(words.fault + " " + fault) + "</span>" : "") +
        (record && record.latency_ms != null ? '<span class="lat">' + Math.round(record.latency_ms) + " ms</span>" : "") +
        "</div>";
      var shown = box.querySelector(".shown");
      box.insertBefore(fromHtml(html), shown);
    }

    function apply(event) {
      var type = event.type;
      if (type === "decision") { lastSeat[event.seat] = event; return; }
      if (type === "hand_started") {
        rounds = 1;
        handNow = event.hand + 1;
        document.querySelectorAll("#table .seat").forEach(function (box) {
          var seat = parseInt(box.dataset.seat, 10);
          var hand = box.querySelector(".hand");
          if (hand) hand.innerHTML = ""; // a spectator sees no hand (as the server's page)
          box.querySelectorAll(".bubble, .shown").forEach(function (n) { n.remove(); });
          var who = box.querySelector(".who");
          var mano = who && who.querySelector(".mano");
          if (mano && seat !== event.mano) mano.remove();
          if (!mano && who && seat === event.mano) who.insertAdjacentHTML("beforeend", ' <span class="mano">mano</span>');
        });
        document.querySelectorAll("#felt .played").forEach(function (p) { p.innerHTML = ""; });
        var results = document.querySelector("#felt .rounds");
        if (results) results.remove();
        handInfo(event.hand + 1, 1);
        var list = document.querySelector("#timeline ol.timeline");
        if (list) list.innerHTML = "";
        var head = document.querySelector("#timeline h2");
        if (head) head.textContent = fmt(words.timeline, { n: event.hand + 1 });
        setScore(event.score);
        open = { said: [], truco: words.not_called, before: event.score };
        document.querySelectorAll("#hands tbody tr.on").forEach(function (row) { row.classList.remove("on"); });
        timeline("hand", fmt(words.t.hand_started, { hand: event.hand + 1, mano: seatName(event.mano) }));
        return;
      }
      if (type === "action") {
        var record = lastSeat[event.seat];
        delete lastSeat[event.seat];
        var who = seatName(event.seat);
        var fault = record && record.fault ? words.faults[record.fault] || record.fault : null;
        if (event.action === "play" && event.card) {
          var hand = document.querySelector("#seat-" + event.seat + " .hand");
          var back = hand && hand.querySelector("svg.card.back");
          if (back) back.remove();
          var felt = document.querySelector('#felt .played[data-seat="' + event.seat + '"]');
          if (felt) felt.insertAdjacentHTML("beforeend", cardSvg(event.card, cardName(event.card), "played"));
          bubble(event.seat, cardName(event.card), record, event.say);
          timeline("play", fmt(words.t.play, { who: who, card: cardName(event.card) }), { say: event.say, fault: fault });
        } else {
          var word = words.said[event.action] || event.action;
          bubble(event.seat, word, record, event.say);
          var kind = words.answers.indexOf(event.action) >= 0 ? "answer" : "canto";
          timeline(kind, who + ": " + word, { say: event.say, fault: fault });
        }
        return;
      }
      if (type === "round_ended") {
        rounds = event.round + 2;
        handInfo(handNow, Math.min(rounds, 3));
        var felt2 = document.getElementById("felt");
        var box = felt2 && felt2.querySelector(".rounds");
        if (felt2 && !box) { box = document.createElement("div"); box.className = "rounds"; felt2.appendChild(box); }
        var result = event.winner == null ? "parda" : team(event.winner);
        if (box) box.insertAdjacentHTML("beforeend", "<span>" + esc(fmt(words.r_n, { n: event.round + 1 }) + " " + result) + "</span>");
        timeline("round", event.winner == null ? fmt(words.t.round_parda, { round: event.round + 1 })
          : fmt(words.t.round_to, { round: event.round + 1, team: team(event.winner) }));
        return;
      }
      if (type === "envido_settled") {
        var chain = (event.chain || []).map(function (c, i) {
          var name = words.named[c] || c;
          return i ? name.toLowerCase() : name;
        }).join(", ");
        var stated = (event.declarations || []).map(function (d) {
          return seatName(d.seat) + " " + (d.points != null ? d.points : words.son_buenas);
        }).join(", ");
        setScore(event.score);
        open.said.push("envido: " + team(event.winner) + ", " + tantos(event.points));
        timeline("settle", fmt(words.t.envido, {
          chain: chain, answer: event.querido ? "querido" : "no querido", points: event.points,
          team: team(event.winner), stated: stated ? " (" + stated + ")" : ""
        }), { points: "+" + event.points + " " + team(event.winner) });
        return;
      }
      if (type === "envido_cancelled") {
        timeline("settle", fmt(words.t.envido_cancelled, { reason: words.words[event.reason] || event.reason }));
        return;
      }
      if (type === "flor_settled") {
        setScore(event.score);
        open.said.push("flor: " + team(event.winner) + ", " + tantos(event.points));
        timeline("settle", fmt(words.t.flor, {
          bet: words.named[event.bet] || event.bet, outcome: words.words[event.outcome] || event.outcome,
          points: event.points, team: team(event.winner)
        }), { points: "+" + event.points + " " + team(event.winner) });
        return;
      }
      if (type === "truco_settled") {
        var level = words.named[event.level] || event.level;
        open.truco = event.querido ? level : fmt(words.not_wanted, { level: level });
        timeline("settle", fmt(words.t.truco, {
          level: words.named[event.level] || event.level, answer: event.querido ? "querido" : "no querido",
          who: seatName(event.seat)
        }));
        return;
      }
      if (type === "hand_ended") {
        setScore(event.score);
        (event.shown || []).forEach(function (s) {
          var seatBox = document.getElementById("seat-" + s.seat);
          if (seatBox) seatBox.insertAdjacentHTML("beforeend", '<div class="shown">' + esc(words.shows) + " " +
            s.cards.map(function (c) { return cardSvg(c, cardName(c), "mini"); }).join("") + "</div>");
        });
        var text = event.winner == null ? fmt(words.t.hand_over, { hand: event.hand + 1 })
          : fmt(words.t.hand_to, { hand: event.hand + 1, team: team(event.winner), points: event.points,
            reason: words.words[event.reason] || event.reason });
        timeline("end", text, event.winner == null ? null : { points: "+" + event.points + " " + team(event.winner) });
        var body = document.querySelector("#hands tbody");
        var won = event.winner, points = event.points, line;
        if (won == null) { // the game ended inside the hand (an envido or flor reached the end)
          var gained = [event.score[0] - open.before[0], event.score[1] - open.before[1]];
          won = gained[0] > gained[1] ? 0 : gained[1] > gained[0] ? 1 : null;
          points = won == null ? 0 : Math.max(gained[0], gained[1]);
          line = open.said.concat([words.ended_in_hand]).join(" · ");
        } else {
          line = open.said.concat(["truco: " + team(won) + ", " + tantos(points) + " (" + open.truco + ")"]).join(" · ");
        }
        if (body) {
          var label = body.closest("table").querySelector("thead th:last-child").textContent;
          body.insertAdjacentHTML("beforeend", '<tr class="on"><td class="num">' + (event.hand + 1) + '</td><td class="name">' +
            esc(won == null ? "—" : cut(team(won), 20)) + '<span class="summary">' + esc(line) +
            '</span></td><td class="num" data-label="+">' + points + '</td><td class="num" data-label="' +
            esc(label) + '" data-score>' + event.score[0] + "-" + event.score[1] + "</td></tr>");
        }
        return;
      }
      if (type === "game_ended") {
        setScore(event.score);
        timeline("end", fmt(words.t.game_over, { team: team(event.winner), a: event.score[0], b: event.score[1] }));
      }
    }

    follow(main, {
      run: function (message) {
        var header = JSON.parse(message.data);
        if (run !== null && header.run !== run) return window.location.reload(); // a new run
        run = header.run;
      },
      message: function (message) {
        var index = parseInt(message.lastEventId, 10);
        if (index < seen) return; // on the page already (one integer compare, no decode)
        seen = index + 1;
        var item = JSON.parse(message.data);
        if (!viewer || !words) return window.location.reload(); // the first events: build the viewer
        if (item.game !== game) {
          var url = new URL(window.location.href);
          url.searchParams.set("game", String(item.game));
          url.searchParams.delete("step");
          return window.location.replace(url.toString()); // a new game: its own viewer
        }
        setScore(item.score);
        item.events.forEach(apply);
      },
      end: function (message, source) {
        source.close();
        over(); // the match is over: its stored replay, where the viewer was
      }
    });
  }

  // --- a live tournament -----------------------------------------------------------------

  function liveTournament(main) {
    var statuses = dataOf(main, "data-statuses") || {};
    var status = main.dataset.status;
    var refresh = null;
    function refreshSoon() {
      // a match over changes the standings, the crosstable, the bracket: fetch the page
      // once (not per event) and swap its sections; the cells already changed stay put
      if (refresh) return;
      refresh = window.setTimeout(function () {
        refresh = null;
        swapMain();
      }, 1000);
    }
    follow(main, {
      match: function (message) {
        var m = JSON.parse(message.data);
        var link = document.querySelector('#rounds a[href="/matches/' + m.id + '"]');
        var row = link && link.closest("tr");
        var cell = row && row.querySelector("td.st .status");
        if (!cell || cell.classList.contains("status-" + m.status)) return;
        var was = cell.className.replace(/.*status-/, "");
        cell.className = "status status-" + m.status;
        cell.textContent = statuses[m.status] || m.status;
        if (m.status !== was && ["done", "forfeit", "cancelled", "error"].indexOf(m.status) >= 0) refreshSoon();
      },
      tournament: function (message) {
        var t = JSON.parse(message.data);
        if (status && t.status !== status) refreshSoon();
        status = t.status;
      },
      end: function (message, source) {
        source.close();
        refreshSoon();
      }
    });
  }

  // ------------------------------------------------------------------ the replay player

  function player(viewer) {
    var data = null;
    var states = [];
    var step = parseInt(viewer.dataset.step || "0", 10);
    var whole = viewer.dataset.whole === "1";
    var playing = null;
    var speed = 1;
    var lastAnnounce = 0;
    var controls = document.getElementById("player");
    var button = document.getElementById("play");
    var select = document.getElementById("speed");
    var announce = document.getElementById("announce");

    function url(to, extra) {
      var q = "?game=" + viewer.dataset.game + "&step=" + to + "&view=" + viewer.dataset.view +
        ((extra === undefined ? whole : extra) ? "&whole=1" : "");
      return viewer.dataset.base + q;
    }

    function expand(frames) {
      var state = { seats: [] };
      return frames.map(function (delta) {
        var next = {};
        Object.keys(state).forEach(function (k) { next[k] = state[k]; });
        Object.keys(delta).forEach(function (k) { if (k !== "seats") next[k] = delta[k]; });
        next.seats = state.seats.slice();
        if (delta.seats) Object.keys(delta.seats).forEach(function (i) { next.seats[+i] = delta.seats[i]; });
        state = next;
        return next;
      });
    }

    function renderSeat(index, seat) {
      var box = document.getElementById("seat-" + index);
      if (!box) return;
      var w = data.words;
      var hand = box.querySelector(".hand");
      if (hand) hand.innerHTML = seat.cards.map(function (c) {
        return c ? cardSvg(c, data.cards[c]) : backSvg(w.hidden);
      }).join("");
      var who = box.querySelector(".who");
      if (who) {
        who.querySelectorAll(".mano, .fault-tag").forEach(function (n) { n.remove(); });
        if (seat.mano) who.insertAdjacentHTML("beforeend", ' <span class="mano">mano</span>');
        if (seat.faults) who.insertAdjacentHTML("beforeend", ' <span class="fault-tag" title="' + esc(w.faults) + '">⚠ ' + seat.faults + "</span>");
      }
      box.querySelectorAll(".bubble, .shown").forEach(function (n) { n.remove(); });
      var b = seat.bubble;
      if (b) {
        box.insertAdjacentHTML("beforeend", '<div class="bubble' + (b.current ? " current" : "") + (b.fault ? " faulty" : "") + '">' +
          '<span class="word">' + esc(b.text) + "</span>" +
          (b.say ? '<q class="say">' + esc(b.say) + "</q>" : "") +
          (b.sena ? '<span class="sena">' + esc(w.sena + " " + b.sena) + "</span>" : "") +
          (b.fault ? '<span class="fault-tag">' + esc(w.fault + " " + b.fault) + "</span>" : "") +
          (b.latency ? '<span class="lat">' + esc(b.latency) + "</span>" : "") + "</div>");
      }
      if (seat.shown && seat.shown.length) {
        box.insertAdjacentHTML("beforeend", '<div class="shown">' + esc(w.shows) + " " +
          seat.shown.map(function (c) { return cardSvg(c, data.cards[c], "mini"); }).join("") + "</div>");
      }
      var played = document.querySelector('#felt .played[data-seat="' + index + '"]');
      if (played) played.innerHTML = seat.played.map(function (c) { return cardSvg(c, data.cards[c], "played"); }).join("");
    }

    function stepper(state) {
      var w = data.words;
      var last = states.length - 1;
      var starts = data.hand_starts;
      var prevHand = null, nextHand = null;
      starts.forEach(function (i) {
        if (i < step) prevHand = i;
        if (i > step && nextHand === null) nextHand = i;
      });
      function link(to, id, title, text, rel) {
        return '<a href="' + url(to) + '" class="btn" id="' + id + '"' + (rel ? ' rel="' + rel + '"' : "") +
          ' title="' + esc(title) + '">' + esc(text) + "</a>";
      }
      function off(text) { return '<span class="btn off">' + esc(text) + "</span>"; }
      var nav = document.querySelector(".stepper");
      if (!nav) return;
      nav.innerHTML = link(0, "first", w.first_title, "|◀") + " " +
        (prevHand !== null ? link(prevHand, "prev-hand", w.prev_hand_title, "« " + w.hand) : off("« " + w.hand)) + " " +
        (step > 0 ? link(step - 1, "prev", w.back_title, "◀ " + w.back, "prev") : off("◀ " + w.back)) + " " +
        '<span class="count" id="step-count">' + (step + 1) + " / " + (last + 1) + "</span> " +
        (step < last ? link(step + 1, "next", w.next_title, w.next + " ▶", "next") : off(w.next + " ▶")) + " " +
        (nextHand !== null ? link(nextHand, "next-hand", w.next_hand_title, w.hand + " »") : off(w.hand + " »")) + " " +
        link(last, "last", w.last_title, "▶|");
      return state;
    }

    function renderTimeline(state) {
      var w = data.words;
      var head = document.querySelector("#timeline h2");
      if (head) head.textContent = fmt(w.timeline, { n: state.hand });
      var list = document.querySelector("#timeline ol.timeline");
      if (!list) return;
      var hand = data.timeline[step].hand;
      var html = [];
      var first = step;
      while (first > 0 && data.timeline[first - 1].hand === hand) first -= 1;
      for (var i = first; i < data.timeline.length && data.timeline[i].hand === hand; i++) {
        if (!whole && i > step) break;
        var it = data.timeline[i];
        html.push('<li class="ev ev-' + esc(it.kind) + (i > step ? " future" : "") + (i === step ? " current" : "") +
          (it.fault ? " faulty" : "") + '"><a href="' + url(i) + '">' + esc(it.text) + "</a>" +
          (it.points ? ' <span class="pts">' + esc(it.points) + "</span>" : "") +
          (it.fault ? ' <span class="fault-tag">' + esc(w.fault + " " + it.fault) + "</span>" : "") +
          (it.say ? '<q class="say">' + esc(it.say) + "</q>" : "") + "</li>");
      }
      list.innerHTML = html.join("");
      showCurrent();
    }

    function renderHands(state) {
      var body = document.querySelector("#hands tbody");
      if (!body) return;
      var label = body.closest("table").querySelector("thead th:last-child").textContent;
      body.innerHTML = data.hands.filter(function (h) { return whole || h.end <= step; }).map(function (h) {
        return "<tr" + (h.hand === state.hand ? ' class="on"' : "") + '><td class="num"><a href="' + url(h.step) + '">' +
          h.hand + '</a></td><td class="name">' + esc(h.winner) + '<span class="summary">' + esc(h.summary) +
          '</span></td><td class="num" data-label="+">' + h.points + '</td><td class="num" data-label="' + esc(label) +
          '" data-score>' + h.score[0] + "-" + h.score[1] + "</td></tr>";
      }).join("");
    }

    function render() {
      var state = states[step];
      [0, 1].forEach(function (t) {
        var cell = document.querySelector('#score strong[data-team="' + t + '"]');
        if (cell) cell.textContent = String(state.score[t]);
      });
      var info = document.querySelector("#score .handinfo");
      if (info) info.textContent = state.info;
      state.seats.forEach(function (seat, i) { renderSeat(i, seat); });
      var felt = document.getElementById("felt");
      var rounds = felt && felt.querySelector(".rounds");
      if (rounds) rounds.remove();
      if (felt && state.rounds.length) {
        felt.insertAdjacentHTML("beforeend", '<div class="rounds">' + state.rounds.map(function (r) {
          return "<span>" + esc(r) + "</span>";
        }).join("") + "</div>");
      }
      var caption = document.getElementById("caption");
      if (caption) caption.textContent = state.caption;
      stepper(state);
      renderTimeline(state);
      renderHands(state);
      var share = document.getElementById("share");
      if (share) {
        var moment = "#g" + viewer.dataset.game + "-s" + (step + 1);
        share.setAttribute("href", viewer.dataset.base + moment);
        share.textContent = moment;
      }
      document.querySelectorAll(".tabs.views a").forEach(function (a) {
        a.setAttribute("href", a.getAttribute("href").replace(/([?&])step=\d+/, "$1step=" + step));
      });
      var wholeLink = document.getElementById("whole");
      if (wholeLink) wholeLink.setAttribute("href", url(step, !whole));
      window.history.replaceState(null, "", url(step));
      var now = Date.now();
      if (announce && (!playing || now - lastAnnounce >= ANNOUNCE_MS)) {
        lastAnnounce = now;
        announce.textContent = fmt(data.words.announce, { n: step + 1, m: states.length, caption: state.caption });
      }
    }

    function go(to) {
      var target = Math.max(0, Math.min(states.length - 1, to));
      if (target === step && states.length) return render();
      step = target;
      render();
    }

    function tick() {
      playing = null;
      if (step >= states.length - 1) return pause();
      go(step + 1);
      if (step >= states.length - 1) return pause();
      playing = window.setTimeout(tick, STEP_MS / speed);
    }

    function play() {
      if (step >= states.length - 1) go(0);
      button.setAttribute("aria-pressed", "true");
      button.textContent = "❚❚ " + button.dataset.pause;
      playing = window.setTimeout(tick, STEP_MS / speed);
    }

    function pause() {
      if (playing) window.clearTimeout(playing);
      playing = null;
      button.setAttribute("aria-pressed", "false");
      button.textContent = "▶ " + button.dataset.play;
      render(); // announces where it stopped
    }

    function toggle() { if (playing) pause(); else play(); }

    // a link to a step of this game, this view, this "whole" choice: stepped in place
    function stepOf(href) {
      var target = new URL(href, window.location.href);
      if (target.pathname !== viewer.dataset.base || target.hash) return null;
      var p = target.searchParams;
      if ((p.get("game") || "1") !== viewer.dataset.game || (p.get("view") || "all") !== viewer.dataset.view) return null;
      if ((p.get("whole") === "1") !== whole || p.get("step") === null) return null;
      var n = parseInt(p.get("step"), 10);
      return isNaN(n) ? null : n;
    }

    fetch(viewer.dataset.steps, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (found) {
        if (!found || !found.steps || !found.steps.length) return;
        data = found;
        states = expand(found.steps);
        step = Math.max(0, Math.min(states.length - 1, step));
        viewer.dataset.ready = "1";
        if (controls) controls.hidden = false;
        document.querySelectorAll(".js-only").forEach(function (n) { n.hidden = false; });
        button.addEventListener("click", toggle);
        select.addEventListener("change", function () {
          speed = parseFloat(select.value) || 1;
          if (playing) { window.clearTimeout(playing); playing = window.setTimeout(tick, STEP_MS / speed); }
        });
        viewer.addEventListener("click", function (event) {
          var a = event.target.closest && event.target.closest("a[href]");
          if (!a || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
          var to = stepOf(a.getAttribute("href"));
          if (to === null) return;
          event.preventDefault();
          if (playing) pause();
          go(to);
          var again = document.getElementById(a.id);
          if (a.id && again) again.focus();
        });
        window.__trucoPlayer = { step: function () { return step; }, steps: states.length };
      });

    return {
      key: function (id) {
        if (!data) return false;
        if (id === "play") { toggle(); return true; }
        var link = document.querySelector(".stepper a#" + id);
        if (!link) return true;
        if (playing) pause();
        go(stepOf(link.getAttribute("href")));
        return true;
      }
    };
  }

  // ------------------------------------------------------------------ keys, moments, layout

  var replayPlayer = null;

  // the replay's keys (listed on the page, #shortcuts): the stepper's links by id
  var KEYS = {
    ArrowRight: "next", ArrowLeft: "prev", PageDown: "next-hand", PageUp: "prev-hand",
    Home: "first", End: "last", p: "play", P: "play"
  };
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    var id = KEYS[event.key];
    if (!id) return;
    if (replayPlayer && replayPlayer.key(id)) { event.preventDefault(); return; }
    var link = document.querySelector(".stepper a#" + id);
    if (link) { event.preventDefault(); window.location.assign(link.href); }
  });

  // a shared moment: /matches/7#g2-s57 opens game 2 at its 57th event
  function openMoment() {
    var found = /^#g(\d+)-s(\d+)$/.exec(window.location.hash);
    var share = document.getElementById("share");
    if (!found || !share) return false;
    var url = new URL(window.location.href);
    url.hash = "";
    url.searchParams.set("game", found[1]);
    url.searchParams.set("step", String(Math.max(0, parseInt(found[2], 10) - 1)));
    window.location.replace(url.toString());
    return true;
  }

  // keep the current event of the replay timeline in sight (scrolls the list, not the page)
  function showCurrent() {
    var item = document.querySelector("#timeline li.current");
    var list = item && item.parentElement;
    if (list) list.scrollTop = Math.max(0, item.offsetTop - list.offsetTop - list.clientHeight / 2);
  }

  // a bracket or a crosstable wider than its panel says so (a phone shows only its start)
  function markOverflow() {
    document.querySelectorAll(".bracket, .crosstable").forEach(function (section) {
      var box = section.querySelector(".scroll");
      if (box) section.classList.toggle("overflows", box.scrollWidth > box.clientWidth + 1);
    });
  }

  function start() {
    if (openMoment()) return;
    showCurrent();
    markOverflow();
    var main = document.getElementById("live");
    var viewer = document.getElementById("viewer");
    if (viewer && viewer.dataset.steps && window.fetch) replayPlayer = player(viewer);
    if (main && main.dataset.stream && main.dataset.kind === "match") liveMatch(main);
    else if (main && main.dataset.stream && main.dataset.kind === "tournament") liveTournament(main);
    else schedule();
  }
  window.addEventListener("resize", markOverflow);

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
