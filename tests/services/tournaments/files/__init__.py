"""Tests of the event files (services/tournaments/files/)."""
