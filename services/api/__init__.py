"""The REST API (Litestar + msgspec): ``create_api`` in :mod:`services.api.app`; the platform's
app (API and pages) is :func:`services.launch.app.create_app`."""
