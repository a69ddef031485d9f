"""Shape rules of ops, one module per op family, registered by name in :mod:`shapeenv.ops.dispatch`.

The rule modules are imported by :mod:`shapeenv.ops` (the torch-like functional namespace),
which is what registers them.
"""
