"""Tests of services/launch."""
