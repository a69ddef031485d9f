"""``export``: tracing a function into an exported program (:mod:`.export`), the derived dims
of ``dynamic_shapes`` specs (:mod:`.derived`), and branches on sizes 0 and 1 traced at those sizes (:mod:`.small`)."""
