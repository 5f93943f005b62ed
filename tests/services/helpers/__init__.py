"""Helpers and fixtures shared by the service tests and the folders beside them (web, worker, security, cli, ladder)."""
