"""Tests of the /play sessions' room (services/play/)."""
