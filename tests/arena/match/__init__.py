"""Tests of arena/match."""
