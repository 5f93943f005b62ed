"""Round robin: the circle method's fixtures and the format."""
