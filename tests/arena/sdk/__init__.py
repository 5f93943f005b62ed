"""Tests of arena/sdk."""
