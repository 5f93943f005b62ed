"""Single and double elimination: the bracket as plain data, its seeding, the knockout rule and the format."""
