"""Tests of arena/conformance."""
