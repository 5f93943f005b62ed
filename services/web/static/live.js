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

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var rel = event.key === "ArrowRight" ? "next" : event.key === "ArrowLeft" ? "prev" : null;
    if (!rel) return;
    var link = document.querySelector('.stepper a[rel="' + rel + '"]');
    if (link) { event.preventDefault(); window.location.assign(link.href); }
  });

  // keep the current event of the replay timeline in sight (scrolls the list, not the page)
  function showCurrent() {
    var item = document.querySelector("#timeline li.current");
    var list = item && item.parentElement;
    if (list) list.scrollTop = Math.max(0, item.offsetTop - list.offsetTop - list.clientHeight / 2);
  }

  function start() { showCurrent(); schedule(); }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
