"""``export``: tracing a function into an exported program (:mod:`.export`), and the derived dims
of ``dynamic_shapes`` specs (:mod:`.derived`)."""
