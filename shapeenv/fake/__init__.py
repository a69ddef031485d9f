"""Fake tensors: shapes, strides, dtypes and storage identity, without data."""

from .dims import Dim
from .dtypes import DType, as_dtype, promote
from .tensor import FakeTensor, Storage, contiguous_strides

__all__ = ["Dim", "DType", "FakeTensor", "Storage", "as_dtype", "contiguous_strides", "promote"]
