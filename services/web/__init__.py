"""Server-rendered pages: leaderboards, tournaments, bots and the replay viewer.

``web_router()`` is a Litestar ``Router`` with the pages, a small JSON endpoint per live page
(polled by ``static/live.js``) and the static files (CSS, JS). Templates are Jinja2 with
autoescape on; every page answers with a strict Content-Security-Policy. Errors on any path
outside the API (``/v1``, ``/schema``, ``/health``) are HTML error pages with the same headers.
``reference_plugins()`` serve the API reference at ``/schema/reference`` (Swagger UI, vendored).
"""

from services.web.errors import pages_for_browser_routes
from services.web.pages import CSP, web_router
from services.web.reference import REFERENCE_URL, reference_plugins

__all__ = ["CSP", "REFERENCE_URL", "pages_for_browser_routes", "reference_plugins", "web_router"]
