"""Tests of the live feed's room (services/live/)."""
