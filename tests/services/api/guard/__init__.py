"""Tests of the HTTP guard (services/api/guard/)."""
