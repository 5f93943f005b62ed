"""Tests of arena/wire."""
