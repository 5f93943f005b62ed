"""Command-line entry points: `truco <command>`. They sit on top and may import any layer."""
