"""Tests of services/base."""
