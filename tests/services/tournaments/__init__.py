"""Tests of services/tournaments."""
