"""Converting between torch's values and this library's: dtypes, memory formats, devices, sizes, frames.

>>> import torch
>>> to_ours(torch.float16), to_torch_dtype(as_dtype("int64"))
('float16', torch.int64)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import torch

import guards
import symint
import valueranges

from shapeenv.tensor.dtypes import DType, as_dtype

__all__ = ["to_ours", "to_torch_dtype", "as_dtype", "user_site", "torch_site", "TORCH_DIR"]

_TORCH_DTYPES: dict[str, torch.dtype] = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
    "int64": torch.int64, "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
    "float64": torch.float64,
}
_OURS: dict[torch.dtype, str] = {v: k for k, v in _TORCH_DTYPES.items()}
_FORMATS = {torch.contiguous_format: "contiguous_format", torch.channels_last: "channels_last",
            torch.preserve_format: "preserve_format"}


def to_torch_dtype(dtype: DType) -> torch.dtype:
    """The torch dtype of one of this library's dtypes.

    >>> to_torch_dtype(as_dtype("bool"))
    torch.bool
    """
    return _TORCH_DTYPES[dtype.name]


def to_ours(value: Any) -> Any:
    """A torch dtype or memory format as this library spells it (its name); anything else unchanged.

    >>> to_ours(torch.channels_last), to_ours(3)
    ('channels_last', 3)
    """
    if isinstance(value, torch.dtype):
        name = _OURS.get(value)
        if name is None:
            from shapeenv.errors import UnsupportedTorchOpError

            raise UnsupportedTorchOpError(f"dtype {value} has no counterpart in shapeenv's fake tensors "
                                          f"(they have {', '.join(_TORCH_DTYPES)})", op=str(value))
        return name
    if isinstance(value, torch.memory_format):
        return _FORMATS.get(value, str(value))
    return value


TORCH_DIR = str(Path(torch.__file__).resolve().parent)
_LIBRARY = tuple(str(Path(m.__file__).resolve().parent) for m in (symint, valueranges, guards, sys.modules["shapeenv"]))
_MODULES = str(Path(TORCH_DIR) / "nn" / "modules")
_SKIP = _LIBRARY + (TORCH_DIR, "<frozen", str(Path(os.__file__).resolve().parent / "contextlib.py"))


def _site(frame) -> str:
    return f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}"


def user_site(skip: int = 1) -> str | None:
    """``file:line in function`` of the innermost frame outside this library and torch (the user's model code).

    >>> user_site() is None or ":" in user_site()
    True
    """
    frame = sys._getframe(skip)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_SKIP):
            return _site(frame)
        frame = frame.f_back
    return None


def torch_site(skip: int = 1) -> str | None:
    """``file:line in function`` of the innermost ``nn.Module`` forward of torch's own (``torch/nn/modules/``), if any.

    >>> torch_site() is None
    True
    """
    frame = sys._getframe(skip)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(_MODULES) and not name.endswith("/module.py"):
            return _site(frame)
        if not name.startswith(_SKIP):
            return None
        frame = frame.f_back
    return None
