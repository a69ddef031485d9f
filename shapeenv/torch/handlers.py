"""The built-in entries of the dispatch table: what has no same-named, same-signature op in :mod:`shapeenv.ops`.

Tensor properties (``shape``, ``dtype``, ``device``, ``T`` ...), ``size()`` returning a
``torch.Size`` of torch SymInts (:mod:`shapeenv.torch.symbolic`), ``to``/``type_as``/``cuda``, factories that need the
trace's ShapeEnv (``torch.zeros(B, H)``, ``torch.arange(T)``, ``torch.tensor([...])``),
``new_*``, aliases (``torch.concat`` -> ``cat``, ``swapaxes`` -> ``transpose``,
``x & y`` -> ``bitwise_and``) and ``torch.sym_max`` & co. Everything else is found by
name (:mod:`shapeenv.torch.table`). Importing this module registers them in
:data:`shapeenv.torch.table.DEFAULT`.

>>> from shapeenv.torch.table import DEFAULT
>>> import torch
>>> DEFAULT.lookup(torch.zeros).target, DEFAULT.lookup(torch.Tensor.shape).target
('torch.zeros', 'torch.Tensor.shape')
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

import symint
from symint import SymInt

from shapeenv import ops
from shapeenv.tensor.dtypes import DTYPES, as_dtype
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.dispatch import call, describe, env_of, is_tensor
from shapeenv.torch.convert import to_torch_dtype
from shapeenv.torch.symbolic import to_torch
from shapeenv.torch.table import DEFAULT, Entry

__all__ = ["install"]


def _attr(name: str, fn, context: bool = False) -> None:
    DEFAULT.register(("attr", name), Entry(fn, f"torch.Tensor.{name}", context), method=name)


def _method(name: str, fn, context: bool = False) -> None:
    DEFAULT.register(None, Entry(fn, f"torch.Tensor.{name}", context), method=name)


def _function(func: Any, fn, context: bool = False) -> None:
    DEFAULT.register(func, Entry(fn, f"torch.{getattr(func, '__name__', func)}", context))


def _env_kw(ctx, sizes) -> dict:
    """``env=`` for a creation op whose sizes are all plain ints (the graph then records no env)."""
    return {} if env_of(sizes) is not None else {"env": ctx.env}


def _sizes(size: tuple) -> tuple:
    """``torch.zeros(2, 3)`` and ``torch.zeros((2, 3))`` alike."""
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)


# -- properties ----------------------------------------------------------------------------------
def _device(ctx, x):
    return ctx.device


_attr("shape", lambda x: _torch_size(x.shape))
_attr("dtype", lambda x: to_torch_dtype(x.dtype))
_attr("device", _device, context=True)
_attr("ndim", lambda x: x.ndim)
_attr("T", lambda x: x.T)
_attr("mT", lambda x: x.mT)
_attr("H", lambda x: x.T)
_attr("mH", lambda x: x.mT)
_attr("data", lambda x: x)
_attr("requires_grad", lambda x: False)
_attr("is_leaf", lambda x: True)
_attr("grad", lambda x: None)
_attr("grad_fn", lambda x: None)
_attr("layout", lambda x: torch.strided)
_attr("itemsize", lambda x: x.dtype.bits // 8)
_attr("is_cuda", lambda ctx, x: ctx.device.type == "cuda", context=True)
_attr("is_cpu", lambda ctx, x: ctx.device.type == "cpu", context=True)
for _flag in ("is_meta", "is_sparse", "is_quantized", "is_nested", "is_mkldnn", "is_xpu", "is_mps"):
    _attr(_flag, lambda x: False)


# -- metadata methods -----------------------------------------------------------------------------
def _torch_size(shape: tuple) -> torch.Size:
    """A ``torch.Size`` of ints and torch SymInts (whose arithmetic is this library's: :mod:`shapeenv.torch.symbolic`)."""
    return torch.Size([to_torch(d) for d in shape])


def _size(x, dim=None):
    return _torch_size(x.shape) if dim is None else x.size(dim)


def _stride(x, dim=None):
    return tuple(x.stride()) if dim is None else x.stride(dim)


def _text(x, *args, **kwargs) -> str:
    return f"TracedTensor({describe(x)})"


_method("size", _size)
_method("stride", _stride)
_method("dim", lambda x: x.ndim)
_method("ndimension", lambda x: x.ndim)
_method("nelement", lambda x: x.numel())
_method("element_size", lambda x: x.dtype.bits // 8)
_method("is_floating_point", lambda x: x.dtype.is_floating_point)
_method("is_complex", lambda x: False)
_method("__repr__", _text)
_method("__str__", _text)
_method("__format__", _text)
_method("__hash__", lambda x: id(x))
_method("detach", lambda x: x)
_method("requires_grad_", lambda x, requires_grad=True: x)
_method("retain_grad", lambda x: None)
_method("__rdiv__", lambda x, other: x.__rtruediv__(other))
_function(torch.numel, lambda x: x.numel())
_function(torch.is_floating_point, lambda x: x.dtype.is_floating_point)
_function(torch.detach, lambda x: x)


# -- dtype and device conversion -----------------------------------------------------------------
_TENSOR_TYPES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
                 "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor",
                 "uint8": "ByteTensor", "bool": "BoolTensor"}


def _is_dtype_name(value: Any) -> bool:
    return isinstance(value, str) and value in DTYPES


def _to(ctx, x, *args, dtype=None, device=None, copy=False, non_blocking=False, memory_format=None):
    """``x.to(dtype)``, ``x.to(device)``, ``x.to(device, dtype)``, ``x.to(other)``."""
    for a in args:
        if is_tensor(a):
            dtype = a.dtype
        elif _is_dtype_name(a):
            dtype = a
        elif isinstance(a, (str, torch.device, int)) and not isinstance(a, bool):
            device = a
    if device is not None:
        ctx.device = device if isinstance(device, torch.device) else torch.device(device)
    out = x if dtype is None else x.to(dtype)
    if memory_format not in (None, "preserve_format"):
        out = out.contiguous(memory_format)
    return out.clone() if copy and out is x else out


def _device_move(kind: str):
    def move(ctx, x, device=None, non_blocking=False, memory_format=None):
        ctx.device = torch.device(kind if device is None else device)
        return x

    return move


_method("to", _to, context=True)
_method("type_as", lambda x, other: x.to(other.dtype))
_method("type", lambda x, dtype=None, non_blocking=False: x.to(dtype) if dtype is not None
        else f"torch.{_TENSOR_TYPES.get(x.dtype.name, 'Tensor')}")
_method("cuda", _device_move("cuda"), context=True)
_method("cpu", _device_move("cpu"), context=True)
_method("bfloat16", lambda x: x.to("bfloat16"))


# -- creation -----------------------------------------------------------------------------------
def _creation(name: str):
    def create(ctx, *size, dtype=None, **_ignored):
        sizes = _sizes(size)
        return getattr(ops, name)(*sizes, dtype=dtype, **_env_kw(ctx, sizes))

    create.__name__ = name
    return create


for _name in ("zeros", "ones", "empty", "rand", "randn"):
    _function(getattr(torch, _name), _creation(_name), context=True)


def _fill_dtype(fill_value: Any) -> str:
    if isinstance(fill_value, bool):
        return "bool"
    if isinstance(fill_value, (int, SymInt)):
        return "int64"
    return "float32"


def _full(ctx, size, fill_value, *, dtype=None, **_ignored):
    sizes = _sizes((size,))
    return ops.full(sizes, fill_value, dtype=dtype or _fill_dtype(fill_value), **_env_kw(ctx, sizes))


def _arange(ctx, start, end=None, step=1, *, dtype=None, **_ignored):
    return ops.arange(start, end, step, dtype=dtype, **_env_kw(ctx, (start, end, step)))


def _shape_of_data(data: Any) -> tuple:
    if isinstance(data, (list, tuple)):
        return (len(data),) + (_shape_of_data(data[0]) if data else ())
    return ()


def _dtype_of_data(data: Any) -> str:
    if isinstance(data, (list, tuple)):
        kinds = {_dtype_of_data(d) for d in data}
        return "float32" if "float32" in kinds else "int64" if "int64" in kinds else "bool" if kinds == {"bool"} else "float32"
    if isinstance(data, bool):
        return "bool"
    if isinstance(data, (int, SymInt)):
        return "int64"
    return "float32"


def _tensor(ctx, data, *, dtype=None, **_ignored):
    """``torch.tensor(data)``: a constant of the data's shape; Python numbers are kept for ``item()`` (Note [Literal tensors])."""
    if is_tensor(data):
        return data if dtype is None else data.to(dtype)
    out = FakeTensor(ctx.env, _shape_of_data(data), as_dtype(dtype or _dtype_of_data(data)))
    if _is_literal(data):
        ctx.remember_literal(out, data)
    return out


def _is_literal(data: Any) -> bool:
    if isinstance(data, (list, tuple)):
        return all(_is_literal(d) for d in data)
    return isinstance(data, (bool, int, float))


def _item(ctx, x):
    """``x.item()``: the value of a literal one-element tensor, else the rule's unbacked SymInt."""
    data = ctx.literal(x)
    while isinstance(data, (list, tuple)) and len(data) == 1:
        data = data[0]
    if data is None or isinstance(data, (list, tuple)):
        return call("item", x)
    return bool(data) if x.dtype.name == "bool" else float(data) if x.dtype.is_floating_point else int(data)


def _new(name: str):
    def new(ctx, x, *size, dtype=None, **_ignored):
        sizes = _sizes(size)
        return getattr(ops, name)(*sizes, dtype=dtype or x.dtype, **_env_kw(ctx, sizes))

    return new


_function(torch.full, _full, context=True)
_function(torch.arange, _arange, context=True)
_function(torch.tensor, _tensor, context=True)
_function(torch.as_tensor, _tensor, context=True)
_method("item", _item, context=True)
_function(torch.scalar_tensor, lambda ctx, v, dtype=None, **_: _tensor(ctx, v, dtype=dtype), context=True)
for _name in ("zeros", "ones", "empty"):
    _method(f"new_{_name}", _new(_name), context=True)
_method("new_full", lambda ctx, x, size, fill_value, dtype=None, **_: _full(ctx, size, fill_value, dtype=dtype or x.dtype),
        context=True)
_method("new_tensor", lambda ctx, x, data, dtype=None, **_: _tensor(ctx, data, dtype=dtype or x.dtype), context=True)


# -- aliases --------------------------------------------------------------------------------------
_function(torch.concat, lambda tensors, dim=0: ops.cat(tensors, dim))
_function(torch.concatenate, lambda tensors, axis=0: ops.cat(tensors, axis))
for _name in ("swapaxes", "swapdims"):
    _function(getattr(torch, _name), lambda x, a, b: ops.transpose(x, a, b))
    _method(_name, lambda x, a, b: ops.transpose(x, a, b))
_function(torch.broadcast_to, lambda x, size: x.expand(*size))
_method("broadcast_to", lambda x, size: x.expand(*size))
_function(F.relu, lambda x, inplace=False: ops.relu(x))
_function(torch.sym_max, symint.sym_max)
_function(torch.sym_min, symint.sym_min)
_function(torch.sym_not, symint.sym_not)


def install() -> None:
    """Nothing to do: importing this module registered the entries (kept for explicitness in ``__init__``)."""
