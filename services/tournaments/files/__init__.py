"""The files an event is read from and checked with: the tournament file of ``truco pair``, FIDE TRF and the export document."""
