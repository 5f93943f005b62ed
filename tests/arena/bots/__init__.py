"""Tests of arena/bots."""
