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
  // The table (static/table.js) folds the stream's items of the page's game: those the page
  // was built from (index < data-seen) at once, the new ones one at a time, paced so that each
  // is seen (a hand's summary stays a few seconds); far behind, it catches up.

  function liveMatch(main) {
    var viewer = document.getElementById("viewer");
    var T = window.TrucoTable;
    var words = T ? T.pageWords() : null;
    var ctx = viewer ? dataOf(viewer, "data-table") : null;
    var seen = parseInt(main.dataset.seen || "0", 10); // the feed items the page was built from
    var game = viewer ? parseInt(viewer.dataset.game || "1", 10) : 0;
    var run = null;
    var fold = null;
    var pacer = null;
    var live = false; // past the items the page was built from

    var count = document.getElementById("step-count");
    var at = count ? count.textContent.split("/") : [];
    if (viewer && at.length === 2 && parseInt(at[0], 10) !== parseInt(at[1], 10)) {
      return schedule(); // looking back at an earlier step: the page stays there (and polls)
    }

    function link(step) {
      return window.location.pathname + "?game=" + game + "&step=" + step + "&view=spectator";
    }

    function drawAll() {
      T.draw(fold);
      T.drawTimeline(fold, { link: link });
      T.drawHands(fold, { link: link });
      var counter = document.getElementById("step-count");
      if (counter) counter.textContent = (fold.step + 1) + " / " + (fold.step + 1);
    }

    function show(event, quiet) {
      var step = fold.apply(event);
      if (!step) return "decision";
      if (!quiet) drawAll();
      return event.type;
    }

    function begin() {
      fold = new T.Fold(ctx, words);
      // the page says when it has shown every item it received (data-idle, with data-last the
      // feed index of the newest): what a reader waits for before it takes the place
      pacer = new T.Pacer(show, {
        stepMs: 500, holdMs: 3000, catchUp: true,
        onIdle: function () { main.dataset.idle = "1"; }
      });
    }

    if (viewer && words && ctx && T) begin();

    follow(main, {
      run: function (message) {
        var header = JSON.parse(message.data);
        var index = parseInt(message.lastEventId, 10);
        if (run !== null && header.run !== run) {
          if (!live || index < seen) { run = header.run; if (fold) begin(); return; } // a later run replaces it
          return window.location.reload(); // a new run while watching: its own page
        }
        run = header.run;
      },
      message: function (message) {
        var index = parseInt(message.lastEventId, 10);
        var item = JSON.parse(message.data);
        if (!fold) {
          if (index >= seen) return window.location.reload(); // the first events: build the viewer
          return;
        }
        if (item.game !== game) {
          if (index < seen) return; // an earlier game, or the next one the page shows no more
          var url = new URL(window.location.href);
          url.searchParams.set("game", String(item.game));
          url.searchParams.delete("step");
          return window.location.replace(url.toString()); // a new game: its own viewer
        }
        if (index < seen) { // on the page already: folded, not shown again
          item.events.forEach(function (e) { fold.apply(e); });
          return;
        }
        if (!live) {
          live = true;
          drawAll();
        }
        main.dataset.idle = "0";
        main.dataset.last = String(index);
        pacer.push(item.events);
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

  // The replay of a finished game in the page: its events as the view sees them
  // (/matches/{id}/steps, /play/{id}/steps), folded by the table (static/table.js) up to the
  // step shown; autoplay holds a hand's summary three steps long.
  function player(viewer) {
    var T = window.TrucoTable;
    var words = T.pageWords();
    var data = null;
    var full = null; // the whole game folded: its steps, hands and timeline
    var last = 0;
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

    function stepper() {
      var w = words;
      var prevHand = null, nextHand = null;
      full.handStarts.forEach(function (i) {
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
    }

    function render() {
      var fold = T.foldTo(data.table, words, data.events, step);
      T.draw(fold);
      var rest = whole ? full.timeline.filter(function (it) { return it.step > step; }) : null;
      T.drawTimeline(fold, { link: url, rest: rest });
      T.drawHands(fold, { link: url, rows: whole ? full.rows : null });
      stepper();
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
        announce.textContent = fmt(words.announce, { n: step + 1, m: last + 1, caption: fold.caption });
      }
    }

    function go(to) {
      step = Math.max(0, Math.min(last, to));
      render();
    }

    // a hand's end stays three steps long while the replay plays itself
    function delay() {
      var at = full.timeline[step];
      var hold = at && (at.type === "hand_ended" || at.type === "game_ended") ? 3 : 1;
      return hold * STEP_MS / speed;
    }

    function tick() {
      playing = null;
      if (step >= last) return pause();
      go(step + 1);
      if (step >= last) return pause();
      playing = window.setTimeout(tick, delay());
    }

    function play() {
      if (step >= last) go(0);
      button.setAttribute("aria-pressed", "true");
      button.textContent = "❚❚ " + button.dataset.pause;
      playing = window.setTimeout(tick, delay());
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
        if (!found || !found.events || !found.events.length || !words) return;
        data = found;
        full = new T.Fold(found.table, words);
        found.events.forEach(function (e) { full.apply(e); });
        last = full.step;
        step = Math.max(0, Math.min(last, step));
        viewer.dataset.ready = "1";
        if (controls) controls.hidden = false;
        document.querySelectorAll(".js-only").forEach(function (n) { n.hidden = false; });
        button.addEventListener("click", toggle);
        select.addEventListener("change", function () {
          speed = parseFloat(select.value) || 1;
          if (playing) { window.clearTimeout(playing); playing = window.setTimeout(tick, delay()); }
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
        window.__trucoPlayer = { step: function () { return step; }, steps: last + 1 };
        if (viewer.dataset.autoplay === "1" && !T.reducedMotion()) play(); // a played game plays itself
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

  // deferred scripts run while the document is "interactive", before DOMContentLoaded: wait
  // for it, so that the table's script (static/table.js, deferred after this one) is there
  if (document.readyState === "complete") {
    start();
  } else {
    document.addEventListener("DOMContentLoaded", start);
  }
})();
