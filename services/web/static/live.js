// Truco Arena pages: the only script. No inline code anywhere (the CSP forbids it).
// 1. Live pages (<main data-poll="URL" data-version="V">) poll URL; when the version changes
//    the page's <main> is fetched again and swapped in place: no manual reload.
// 2. In the replay viewer, the arrow keys step back and forward.
(function () {
  "use strict";
  var POLL_MS = 4000;

  function poll() {
    var main = document.getElementById("live");
    if (!main || !main.dataset.poll) return;
    fetch(main.dataset.poll, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (state) {
        if (!state || state.version === main.dataset.version) return schedule();
        return fetch(window.location.href, { cache: "no-store", credentials: "same-origin" })
          .then(function (r) { return r.text(); })
          .then(function (html) {
            var doc = new DOMParser().parseFromString(html, "text/html");
            var fresh = doc.getElementById("live");
            if (fresh) {
              main.replaceWith(document.adoptNode(fresh));
              markOverflow();
            }
            schedule();
          });
      })
      .catch(schedule);
  }

  function schedule() {
    var main = document.getElementById("live");
    if (main && main.dataset.poll) window.setTimeout(poll, POLL_MS);
  }

  // the replay's keys (listed on the page, #shortcuts): the stepper's links by id
  var KEYS = {
    ArrowRight: "next", ArrowLeft: "prev", PageDown: "next-hand", PageUp: "prev-hand",
    Home: "first", End: "last"
  };
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var id = KEYS[event.key];
    var link = id && document.querySelector(".stepper a#" + id);
    if (link) { event.preventDefault(); window.location.assign(link.href); }
  });

  // a shared moment: /matches/7#g2-s57 opens game 2 at its 57th event
  function openMoment() {
    var found = /^#g(\d+)-s(\d+)$/.exec(window.location.hash);
    var share = document.getElementById("share");
    if (!found || !share) return;
    var url = new URL(window.location.href);
    url.hash = "";
    url.searchParams.set("game", found[1]);
    url.searchParams.set("step", String(Math.max(0, parseInt(found[2], 10) - 1)));
    window.location.replace(url.toString());
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

  function start() { openMoment(); showCurrent(); markOverflow(); schedule(); }
  window.addEventListener("resize", markOverflow);

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
