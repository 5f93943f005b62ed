"""Tests of services/api."""
