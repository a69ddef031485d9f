"""``scaled_dot_product_attention``: ``softmax(q @ k^T * scale + mask) @ v`` as torch's CPU math path shapes it.

``query (..., L, E)``, ``key (..., S, E)``, ``value (..., S, Ev)`` (at least 2-d each) give
``(..., L, Ev)``, contiguous, of the query's dtype; the three dtypes must agree. The batch dims
(``...``) broadcast. With ``enable_gqa`` the key/value heads (dim -3) may be fewer than the
query's: they must divide them, and key and value must have the same number.

``attn_mask`` is bool (True: take part) or of the query's dtype (added), broadcast to
``(..., L, S)``; ``is_causal`` may not be combined with a mask. ``dropout_p`` must lie in
``[0, 1]``; ``scale`` (a float or None) does not change shapes.

Note [SDPA kernel selection]
    The output's layout depends on the kernel torch's CPU dispatch selects (measured on torch
    2.13): the flash kernel, laying the output out like the query (``empty_like``: a
    ``(B, T, H, D)``-major query from ``x.view(B, T, H, D).transpose(1, 2)`` gives such an output),
    is taken for 4-d query/key/value with equal head dims, equal batch and head counts (fewer
    key/value heads with ``enable_gqa``), unit last-dim strides, non-empty sequences, no dropout,
    and no mask or a 2-d/4-d one; otherwise the math path writes a contiguous result. The size
    conditions are decided as torch's selection decides them (a guard only when the hints alone
    tell).

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); q = env.fake_tensor((2, 8, 5, 16), name="q"); kv = env.fake_tensor((2, 2, 7, 16), name="kv")
>>> scaled_dot_product_attention(q, kv, kv, is_causal=True, enable_gqa=True).shape
(s0, s1, s2, s3)
"""

from __future__ import annotations

from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import bool_
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.tensor import layout
from shapeenv.ops.common import check_tensor, decide, fmt_shape, known_true, new_tensor, require
from shapeenv.ops.rules.elementwise import broadcast_shapes
from shapeenv.ops.registry import rule

__all__ = ["scaled_dot_product_attention"]

OP = "scaled_dot_product_attention"


@rule("scaled_dot_product_attention")
def scaled_dot_product_attention(query: FakeTensor, key: FakeTensor, value: FakeTensor, attn_mask: Any = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: Any = None,
                                 enable_gqa: bool = False) -> FakeTensor:
    """``F.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
    scale=None, enable_gqa=False)`` (see the module docstring).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); q = env.fake_tensor((5, 8), name="q"); k = env.fake_tensor((7, 8), name="k")
    >>> scaled_dot_product_attention(q, k, env.fake_tensor((7, 3), name="v")).shape
    (s0, s3)
    """
    for what, t in (("query", query), ("key", key), ("value", value)):
        check_tensor(t, OP, what)
        if t.ndim < 2:
            raise ShapeError(f"{OP}: {what} must be at least 2-d (..., sequence, embedding), got shape {fmt_shape(t.shape)}")
    if not (query.dtype == key.dtype == value.dtype):
        raise ShapeError(f"{OP}: Expected query, key, and value to have the same dtype, but got query.dtype: "
                         f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead.")
    if not query.dtype.is_floating_point:
        raise ShapeError(f"{OP}: query, key and value must be floating point, got {query.dtype}")
    if isinstance(dropout_p, bool) or not isinstance(dropout_p, (int, float)) or not 0.0 <= dropout_p <= 1.0:
        raise ShapeError(f"{OP}: dropout_p must be a float in [0, 1], got {dropout_p!r}")
    L, E = query.shape[-2], query.shape[-1]
    S, Ek = key.shape[-2], key.shape[-1]
    require(E == Ek, lambda: (f"{OP}: the embedding sizes of query and key differ: query {fmt_shape(query.shape)}, "
                              f"key {fmt_shape(key.shape)} (the last dims must be equal)"))
    require(value.shape[-2] == S, lambda: (f"{OP}: key and value must have the same sequence length (dim -2): key "
                                           f"{fmt_shape(key.shape)}, value {fmt_shape(value.shape)}"))
    kb, vb = key.shape[:-2], value.shape[:-2]
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3 and value.ndim >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        require(hk == hv, lambda: f"{OP}: with enable_gqa, key and value must have the same number of heads, got {hk} and {hv}")
        require(hq % hk == 0, lambda: (f"{OP}: Number of heads in key and value must divide the number of heads in "
                                       f"query, got {hk} key/value heads and {hq} query heads"))
        if not (hk is hq or known_true(hk == hq)):
            kb, vb = kb[:-1] + (hq,), vb[:-1] + (hq,)
    batch = broadcast_shapes(query.shape[:-2], kb, vb, op=OP)
    if attn_mask is not None:
        check_tensor(attn_mask, OP, "attn_mask")
        if is_causal:
            raise ShapeError(f"{OP}: Explicit attn_mask should not be set when is_causal=True",
                             fix="drop attn_mask (is_causal builds the causal mask), or fold causality into attn_mask")
        if attn_mask.dtype != bool_ and attn_mask.dtype != query.dtype:
            raise ShapeError(f"{OP}: Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                             f"attn_mask.dtype: {attn_mask.dtype} and query.dtype: {query.dtype} instead.")
        scores = broadcast_shapes(batch + (L, S), attn_mask.shape, op=OP)
        if len(scores) != len(batch) + 2:
            raise ShapeError(f"{OP}: attn_mask of shape {fmt_shape(attn_mask.shape)} has more dims than the attention "
                             f"scores {fmt_shape(batch + (L, S))}")
        batch = scores[:-2]
    shape = batch + (L, value.shape[-1])
    flash = _flash_cpu(query, key, value, attn_mask, dropout_p, enable_gqa)
    return new_tensor(query.env, shape, query.dtype, layout.like_strides(query.shape, query.stride()) if flash else None)


def _flash_cpu(query: FakeTensor, key: FakeTensor, value: FakeTensor, attn_mask: Any, dropout_p: float,
               enable_gqa: bool) -> bool:
    """Whether torch's CPU dispatch picks the flash kernel (which lays the output out like the query) over the math
    path (contiguous); see Note [SDPA kernel selection]."""
    if not (query.ndim == key.ndim == value.ndim == 4) or dropout_p > 0:
        return False
    if attn_mask is not None and attn_mask.ndim not in (2, 4):
        return False
    same = [query.shape[-1] == key.shape[-1], key.shape[-1] == value.shape[-1], query.shape[0] == key.shape[0],
            key.shape[0] == value.shape[0], key.shape[1] == value.shape[1]]
    if not enable_gqa:
        same.append(query.shape[1] == key.shape[1])
    same += [t.stride(-1) == 1 for t in (query, key, value)]
    same += [query.shape[-2] != 0, key.shape[-2] != 0]
    return all(decide(c) for c in same)
