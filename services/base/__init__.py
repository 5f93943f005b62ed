"""Settings and plumbing every room may use: the settings (:mod:`.config`), the limits
(:mod:`.limits`), the secret box that encrypts the bots' signing secrets (:mod:`.secretbox`)
and the log levels (:mod:`.log_levels`). Imports nothing else of ``services``."""
