// The API reference page (/schema/reference): starts Swagger UI on the document named by
// #swagger-ui's data-url. A file of its own because the CSP forbids inline scripts.
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  if (!root || typeof window.SwaggerUIBundle !== "function") return;
  window.SwaggerUIBundle({
    url: root.dataset.url,
    domNode: root,
    validatorUrl: null, // no badge fetched from a validator elsewhere
    deepLinking: false, // a deep link is a link inside each operation's button (axe: nested-interactive)
    docExpansion: "list",
    tryItOutEnabled: false,
    onComplete: function () {
      // Swagger UI's server picker has no accessible name of its own
      var servers = root.querySelector("select#servers");
      if (servers) servers.setAttribute("aria-label", "Server");
    }
  });
})();
