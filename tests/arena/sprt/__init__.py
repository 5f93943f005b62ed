"""Tests of arena/sprt."""
