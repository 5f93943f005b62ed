"""SPRT: the sequential probability ratio test on game pairs and how a pair is scored."""
