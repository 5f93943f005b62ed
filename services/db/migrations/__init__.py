"""Versioned SQL migrations (NNNN_name.sql), applied in order by services.db.migrate."""
