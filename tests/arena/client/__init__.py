"""Tests of arena/client."""
