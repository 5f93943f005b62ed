"""Tests of the Swiss system (services/tournaments/swiss/); ``data/`` holds simulated events and the reference pairer's answers."""
