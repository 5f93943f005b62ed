"""The REST API (Litestar + msgspec): ``create_app`` in :mod:`services.api.app`."""
