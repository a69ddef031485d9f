"""Simplifying guard sets: the passes (:mod:`.passes`), finite-domain enumeration, divisibility,
and the facts the passes use."""
