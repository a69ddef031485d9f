"""Adapters for composite torch functions with no single shape rule, written with :mod:`shapeenv.ops`.

``torch.nn.functional.multi_head_attention_forward`` (what ``nn.MultiheadAttention`` and
``nn.TransformerEncoderLayer`` / ``DecoderLayer`` call) is a long Python function; the
function mode sees only its entry, so the adapter here recomputes its shapes the way torch
does: projections (packed or separate weights), heads split with ``view``/``transpose``,
``bmm`` scores with the attention and key-padding masks added, ``softmax``, ``bmm`` with the
values, the output projection, and the attention weights averaged over heads when asked.
Every step is an op of this library, so its guards (``embed_dim`` divisible by the heads,
mask shapes that broadcast) are recorded as torch's implementation would check them.

Not supported (an :class:`~shapeenv.errors.UnsupportedTorchOpError`): ``bias_k``/``bias_v``,
``add_zero_attn`` and ``static_k``/``static_v``.

``torch.lstm`` / ``torch.gru`` / ``torch.rnn_tanh`` / ``torch.rnn_relu`` (what ``nn.LSTM``, ``nn.GRU``
and ``nn.RNN`` call, after their own Python checks of the input and hidden sizes) give the
output ``(T, B, D * H_out)`` (a transposed view of it for ``batch_first``, as torch's kernel
returns it) and final states shaped like the initial ones; the first layer's input
projection is applied to the input, so its feature size is checked as torch's kernel
checks it. Packed sequences are not supported.

``torch.addmm`` / ``torch.baddbmm`` (Hugging Face's ``Conv1D``, attention code) are ``add`` of
``mm`` / ``bmm``, as fallbacks: a shape rule of their own, once registered, takes over.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .. import ops
from ..errors import ShapeError, UnsupportedTorchOpError
from .table import DEFAULT, Entry

__all__ = ["multi_head_attention_forward", "recurrent", "addmm", "baddbmm"]


def _project(x, weight, bias):
    return ops.linear(x, weight, bias)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """The shapes of ``torch.nn.functional.multi_head_attention_forward`` (see the module docstring).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); q = env.fake_tensor((5, 2, 8), dynamic={0}, name="q")
    >>> w, b, ow, ob = (env.fake_tensor(s, dynamic=False, name=n) for s, n in (((24, 8), "w"), ((24,), "b"), ((8, 8), "ow"), ((8,), "ob")))
    >>> out, weights = multi_head_attention_forward(q, q, q, 8, 2, w, b, None, None, False, 0.0, ow, ob)
    >>> out.shape, weights.shape
    ((s0, 2, 8), (2, s0, s0))
    """
    if bias_k is not None or bias_v is not None or add_zero_attn or static_k is not None or static_v is not None:
        raise UnsupportedTorchOpError(
            "multi_head_attention_forward with bias_k/bias_v, add_zero_attn or static_k/static_v is not supported",
            op="torch.nn.functional.multi_head_attention_forward",
            fix="build the module with add_bias_kv=False, add_zero_attn=False, or register an adapter of your own")
    batched = query.ndim == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise ShapeError(f"multi_head_attention_forward: the query's embedding size {embed_dim} is not the module's "
                         f"embed_dim {embed_dim_to_check}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise ShapeError(f"multi_head_attention_forward: embed_dim {embed_dim} is not divisible by num_heads {num_heads}")
    biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
    if use_separate_proj_weight:
        weights = (q_proj_weight, k_proj_weight, v_proj_weight)
    else:
        weights = in_proj_weight.chunk(3)
    q = _project(query, weights[0], biases[0])
    k = _project(key, weights[1], biases[1])
    v = _project(value, weights[2], biases[2])
    heads = bsz * num_heads
    q = q.view(tgt_len, heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], heads, head_dim).transpose(0, 1)
    mask = None
    if attn_mask is not None:
        mask = (attn_mask.unsqueeze(0) if attn_mask.ndim == 2 else attn_mask).to(q.dtype)
    if key_padding_mask is not None:
        padding = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(heads, 1, src_len)
        padding = padding.to(q.dtype)
        mask = padding if mask is None else mask + padding
    scores = ops.bmm(q * (1.0 / float(head_dim) ** 0.5), k.transpose(-2, -1))
    if mask is not None:
        scores = scores + mask
    weights_out = ops.softmax(scores, -1)
    out = ops.bmm(weights_out, v)
    out = out.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
    out = ops.linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, out.shape[1])
    if not need_weights:
        return (out if batched else out.squeeze(1)), None
    weights_out = weights_out.view(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights_out = weights_out.mean(dim=1)
    if not batched:
        return out.squeeze(1), weights_out.squeeze(0)
    return out, weights_out


def recurrent(name: str):
    """The adapter of ``torch.<name>`` (``lstm``, ``gru``, ``rnn_tanh``, ``rnn_relu``): see the module docstring."""

    def run(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first=False):
        if isinstance(has_biases, (list, tuple)):  # torch.<name>(data, batch_sizes, hx, params, ...)
            raise UnsupportedTorchOpError(f"torch.{name} on a packed sequence is not supported",
                                          op=f"torch.{name}", fix="pass padded tensors (and lengths) instead")
        states = list(hx) if isinstance(hx, (list, tuple)) else [hx]
        x = input.transpose(0, 1) if batch_first else input
        ops.matmul(x, params[0].transpose(0, 1))  # the input features must match the first layer's weight
        steps, batch = x.shape[0], x.shape[1]
        out = input.new_zeros(steps, batch, states[0].shape[-1] * (2 if bidirectional else 1))
        finals = [s.new_zeros(*s.shape) for s in states]
        return (out.transpose(0, 1) if batch_first else out, *finals)

    run.__name__ = name
    return run


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``torch.addmm``: ``beta * input + alpha * (mat1 @ mat2)`` (what Hugging Face's ``Conv1D`` calls).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x, w, b = (env.fake_tensor(s, dynamic=False, name=n) for s, n in (((5, 8), "x"), ((8, 3), "w"), ((3,), "b")))
    >>> addmm(b, x, w).shape
    (5, 3)
    """
    return ops.add(input, ops.mm(mat1, mat2))


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``torch.baddbmm``: ``beta * input + alpha * (batch1 @ batch2)``, batched."""
    return ops.add(input, ops.bmm(batch1, batch2))


for _func, _fn in ((torch.addmm, addmm), (torch.baddbmm, baddbmm)):  # until a rule of their own exists
    DEFAULT.register_fallback(_func, Entry(_fn, f"shapeenv.torch.composites.{_fn.__name__}"))
    DEFAULT.register_fallback(getattr(torch.Tensor, _fn.__name__), Entry(_fn, f"shapeenv.torch.composites.{_fn.__name__}"))

for _name in ("lstm", "gru", "rnn_tanh", "rnn_relu"):
    DEFAULT.register(getattr(torch, _name), Entry(recurrent(_name), f"shapeenv.torch.composites.recurrent({_name!r})"))

DEFAULT.register(F.multi_head_attention_forward, Entry(multi_head_attention_forward,
                                                       "shapeenv.torch.composites.multi_head_attention_forward"))
