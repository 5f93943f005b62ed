"""Tests of the brackets (services/tournaments/brackets/)."""
