"""Fake tensors: shapes, strides, dtypes and storage identity, without data."""

from shapeenv.tensor.dims import Dim
from shapeenv.tensor.dtypes import DType, as_dtype, promote
from shapeenv.tensor.tensor import FakeTensor, Storage, contiguous_strides

__all__ = ["Dim", "DType", "FakeTensor", "Storage", "as_dtype", "contiguous_strides", "promote"]
