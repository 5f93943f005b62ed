"""Tests of services/flow."""
