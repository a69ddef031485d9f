"""Kernels that run the ops on real data: :mod:`shapeenv.ops.kernels.numpy` (imported only when used)."""
