"""Tests of services/db."""
