"""Tests of arena/game."""
