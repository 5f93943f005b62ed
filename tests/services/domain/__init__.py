"""Tests of services/domain."""
