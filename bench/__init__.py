"""Benchmarks behind `make bench`. Each module has ``main() -> None`` and prints its figures."""
