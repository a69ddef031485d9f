"""The ``shapeenv.ops`` functions of the ops real models use beyond the basics (re-exported by :mod:`shapeenv.ops`).

Each has torch's name and signature (positional order, keyword names, defaults), so that torch
callables map to them by name: activations, dropout, masks and bounds, normalisations, ...

>>> from shapeenv import ShapeEnv, ops
>>> x = ShapeEnv().fake_tensor((2, 3, 8), name="x")
>>> ops.layer_norm(ops.gelu(x), (8,)).shape, ops.dropout(x, training=False) is x
((s0, s1, 8), True)
"""

from __future__ import annotations

from shapeenv.ops.rules import activations, attention, bitwise, conv_transpose, einsum as _einsum, embedding as _embedding  # noqa: F401
from shapeenv.ops.rules import masking, norms, pointwise_math, pooling, rnn_cells, scans, setitem, statistics  # noqa: F401  (register)
from shapeenv.ops.rules import losses, rearrange, tensor_math  # noqa: F401  (register)
from shapeenv.errors import ShapeEnvTypeError
from shapeenv.ops.dispatch import call

__all__ = [
    "gelu", "silu", "softplus", "hardswish", "hardsigmoid", "leaky_relu", "elu", "selu", "celu", "mish", "relu6",
    "hardtanh", "logsigmoid", "softsign", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
    "feature_alpha_dropout",
    "masked_fill", "tril", "triu", "clamp", "clip", "clamp_min", "clamp_max",
    "layer_norm", "rms_norm", "group_norm", "batch_norm", "instance_norm", "_weight_norm",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logical_and", "logical_or", "logical_xor", "logical_not",
    "cumsum", "cumprod", "sort", "argsort", "topk", "var", "std", "var_mean", "std_mean",
    "embedding", "embedding_bag", "one_hot", "repeat_interleave", "index_put", "index_put_", "einsum",
    "scaled_dot_product_attention", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "avg_pool1d", "max_pool1d", "interpolate", "upsample", "conv_transpose1d", "conv_transpose2d",
    "rsqrt", "erf", "erfc", "log1p", "expm1", "log2", "log10", "exp2", "reciprocal", "asin", "acos", "atan", "sinh", "cosh",
    "asinh", "atanh", "floor", "ceil", "round", "trunc", "frac", "square", "sign", "sgn", "floor_divide", "remainder",
    "fmod", "atan2", "norm", "linalg_vector_norm", "normalize", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
    "outer", "logsumexp", "roll", "diff", "isnan", "isinf", "isfinite", "all", "any", "lerp",
    "pixel_shuffle", "pixel_unshuffle", "meshgrid", "cosine_similarity",
    "mse_loss", "l1_loss", "smooth_l1_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div",
]


# -- activations and dropout (shapeenv.ops.rules.activations) --------------------------------------------
def gelu(input, approximate="none"):  # noqa: A002
    """``F.gelu``."""
    return call("gelu", input, approximate)


def silu(input, inplace=False):  # noqa: A002
    """``F.silu``."""
    return call("silu", input, inplace)


def softplus(input, beta=1, threshold=20):  # noqa: A002
    """``F.softplus``."""
    return call("softplus", input, beta, threshold)


def hardswish(input, inplace=False):  # noqa: A002
    """``F.hardswish``."""
    return call("hardswish", input, inplace)


def hardsigmoid(input, inplace=False):  # noqa: A002
    """``F.hardsigmoid``."""
    return call("hardsigmoid", input, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002
    """``F.leaky_relu``."""
    return call("leaky_relu", input, negative_slope, inplace)


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    """``F.elu``."""
    return call("elu", input, alpha, inplace)


def selu(input, inplace=False):  # noqa: A002
    """``F.selu``."""
    return call("selu", input, inplace)


def celu(input, alpha=1.0, inplace=False):  # noqa: A002
    """``F.celu``."""
    return call("celu", input, alpha, inplace)


def mish(input, inplace=False):  # noqa: A002
    """``F.mish``."""
    return call("mish", input, inplace)


def relu6(input, inplace=False):  # noqa: A002
    """``F.relu6``."""
    return call("relu6", input, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    """``F.hardtanh``."""
    return call("hardtanh", input, min_val, max_val, inplace)


def logsigmoid(input):  # noqa: A002
    """``F.logsigmoid``."""
    return call("logsigmoid", input)


def softsign(input):  # noqa: A002
    """``F.softsign``."""
    return call("softsign", input)


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """``F.dropout`` (the input itself when ``training=False`` or ``p == 0``)."""
    return call("dropout", input, p, training, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """``F.dropout1d`` (channel-wise)."""
    return call("dropout1d", input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """``F.dropout2d`` (channel-wise)."""
    return call("dropout2d", input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """``F.dropout3d`` (channel-wise)."""
    return call("dropout3d", input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    """``F.alpha_dropout``."""
    return call("alpha_dropout", input, p, training, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    """``F.feature_alpha_dropout``."""
    return call("feature_alpha_dropout", input, p, training, inplace)


# -- masks and bounds (shapeenv.ops.rules.masking) -------------------------------------------------------
def masked_fill(input, mask, value):  # noqa: A002
    """``torch.masked_fill``."""
    return call("masked_fill", input, mask, value)


def tril(input, diagonal=0):  # noqa: A002
    """``torch.tril``."""
    return call("tril", input, diagonal)


def triu(input, diagonal=0):  # noqa: A002
    """``torch.triu``."""
    return call("triu", input, diagonal)


def clamp(input, min=None, max=None):  # noqa: A002
    """``torch.clamp``."""
    return call("clamp", input, min, max)


def clip(input, min=None, max=None):  # noqa: A002
    """``torch.clip`` (an alias of ``clamp``)."""
    return call("clamp", input, min, max)


def clamp_min(input, min):  # noqa: A002
    """``torch.clamp_min``."""
    return call("clamp", input, min, None)


def clamp_max(input, max):  # noqa: A002
    """``torch.clamp_max``."""
    return call("clamp", input, None, max)


# -- normalisations (shapeenv.ops.rules.norms) -----------------------------------------------------------
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):  # noqa: A002
    """``F.layer_norm``."""
    return call("layer_norm", input, normalized_shape, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    """``F.rms_norm``."""
    return call("rms_norm", input, normalized_shape, weight, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):  # noqa: A002
    """``F.group_norm``."""
    return call("group_norm", input, num_groups, weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,  # noqa: A002
               eps=1e-05):
    """``F.batch_norm``."""
    return call("batch_norm", input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,  # noqa: A002
                  momentum=0.1, eps=1e-05):
    """``F.instance_norm``."""
    return call("instance_norm", input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def _weight_norm(v, g, dim=0):
    """``torch._weight_norm`` (the kernel of ``nn.utils.weight_norm``)."""
    return call("_weight_norm", v, g, dim)


# -- bitwise and logical (shapeenv.ops.rules.bitwise) ----------------------------------------------------
def bitwise_and(input, other):  # noqa: A002
    """``torch.bitwise_and`` (``&``)."""
    return call("bitwise_and", input, other)


def bitwise_or(input, other):  # noqa: A002
    """``torch.bitwise_or`` (``|``)."""
    return call("bitwise_or", input, other)


def bitwise_xor(input, other):  # noqa: A002
    """``torch.bitwise_xor`` (``^``)."""
    return call("bitwise_xor", input, other)


def bitwise_not(input):  # noqa: A002
    """``torch.bitwise_not`` (``~``)."""
    return call("bitwise_not", input)


def logical_and(input, other):  # noqa: A002
    """``torch.logical_and``."""
    return call("logical_and", input, other)


def logical_or(input, other):  # noqa: A002
    """``torch.logical_or``."""
    return call("logical_or", input, other)


def logical_xor(input, other):  # noqa: A002
    """``torch.logical_xor``."""
    return call("logical_xor", input, other)


def logical_not(input):  # noqa: A002
    """``torch.logical_not``."""
    return call("logical_not", input)


# -- scans, sorting, statistics (shapeenv.ops.rules.scans, statistics) ------------------------------------
def cumsum(input, dim, *, dtype=None):  # noqa: A002
    """``torch.cumsum``."""
    return call("cumsum", input, dim, dtype)


def cumprod(input, dim, *, dtype=None):  # noqa: A002
    """``torch.cumprod``."""
    return call("cumprod", input, dim, dtype)


def sort(input, dim=-1, descending=False, *, stable=False):  # noqa: A002
    """``torch.sort``: ``(values, indices)``."""
    return call("sort", input, dim, descending, stable)


def argsort(input, dim=-1, descending=False, *, stable=False):  # noqa: A002
    """``torch.argsort``."""
    return call("argsort", input, dim, descending, stable)


def topk(input, k, dim=None, largest=True, sorted=True):  # noqa: A002
    """``torch.topk``: ``(values, indices)``; ``k`` may be a SymInt; ``dim=None`` is the last dim."""
    return call("topk", input, k, dim, largest, sorted)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    """``torch.var`` (also the legacy ``var(input, unbiased)``)."""
    return call("var", input, dim, unbiased, keepdim, correction)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    """``torch.std``."""
    return call("std", input, dim, unbiased, keepdim, correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    """``torch.var_mean``: ``(var, mean)``."""
    return call("var_mean", input, dim, unbiased, keepdim, correction)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    """``torch.std_mean``: ``(std, mean)``."""
    return call("std_mean", input, dim, unbiased, keepdim, correction)


# -- lookups, counts, writes (shapeenv.ops.rules.embedding, setitem) --------------------------------------
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,  # noqa: A002
              sparse=False):
    """``F.embedding``."""
    return call("embedding", input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,  # noqa: A002
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``F.embedding_bag``."""
    return call("embedding_bag", input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                per_sample_weights, include_last_offset, padding_idx)


def one_hot(tensor, num_classes=-1):
    """``F.one_hot`` (``num_classes=-1``: a data-dependent, unbacked count)."""
    return call("one_hot", tensor, num_classes)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):  # noqa: A002
    """``torch.repeat_interleave`` (also ``repeat_interleave(repeats)``)."""
    return call("repeat_interleave", input, repeats, dim, output_size)


def index_put(input, indices, values, accumulate=False):  # noqa: A002
    """``torch.index_put``: a copy with ``input[indices] = values``."""
    return call("index_put", input, indices, values, accumulate)


def index_put_(input, indices, values, accumulate=False):  # noqa: A002
    """``torch.index_put_``: in place."""
    return call("index_put_", input, indices, values, accumulate)


def einsum(equation, *operands):
    """``torch.einsum`` (operands as arguments or one list)."""
    return call("einsum", equation, *operands)


# -- attention, pooling, resampling, transposed convolutions -----------------------------------------
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """``F.scaled_dot_product_attention``."""
    return call("scaled_dot_product_attention", query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """``F.adaptive_avg_pool1d``."""
    return call("adaptive_avg_pool1d", input, output_size)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """``F.adaptive_avg_pool2d`` (``None`` entries keep the input's size)."""
    return call("adaptive_avg_pool2d", input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    """``F.adaptive_max_pool1d``."""
    return call("adaptive_max_pool1d", input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """``F.adaptive_max_pool2d``."""
    return call("adaptive_max_pool2d", input, output_size, return_indices)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):  # noqa: A002
    """``F.avg_pool1d``."""
    return call("avg_pool1d", input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """``F.max_pool1d``."""
    return call("max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias=False):
    """``F.interpolate``."""
    return call("interpolate", input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    """``F.upsample`` (deprecated in torch: ``interpolate``)."""
    return call("interpolate", input, size, scale_factor, mode, align_corners)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):  # noqa: A002
    """``F.conv_transpose1d``."""
    return call("conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):  # noqa: A002
    """``F.conv_transpose2d``."""
    return call("conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups, dilation)


# -- more pointwise math, norms (shapeenv.ops.rules.pointwise_math) --------------------------------------
def rsqrt(input):  # noqa: A002
    """``torch.rsqrt``."""
    return call("rsqrt", input)


def erf(input):  # noqa: A002
    """``torch.erf``."""
    return call("erf", input)


def erfc(input):  # noqa: A002
    """``torch.erfc``."""
    return call("erfc", input)


def log1p(input):  # noqa: A002
    """``torch.log1p``."""
    return call("log1p", input)


def expm1(input):  # noqa: A002
    """``torch.expm1``."""
    return call("expm1", input)


def log2(input):  # noqa: A002
    """``torch.log2``."""
    return call("log2", input)


def log10(input):  # noqa: A002
    """``torch.log10``."""
    return call("log10", input)


def exp2(input):  # noqa: A002
    """``torch.exp2``."""
    return call("exp2", input)


def reciprocal(input):  # noqa: A002
    """``torch.reciprocal``."""
    return call("reciprocal", input)


def asin(input):  # noqa: A002
    """``torch.asin``."""
    return call("asin", input)


def acos(input):  # noqa: A002
    """``torch.acos``."""
    return call("acos", input)


def atan(input):  # noqa: A002
    """``torch.atan``."""
    return call("atan", input)


def sinh(input):  # noqa: A002
    """``torch.sinh``."""
    return call("sinh", input)


def cosh(input):  # noqa: A002
    """``torch.cosh``."""
    return call("cosh", input)


def asinh(input):  # noqa: A002
    """``torch.asinh``."""
    return call("asinh", input)


def atanh(input):  # noqa: A002
    """``torch.atanh``."""
    return call("atanh", input)


def floor(input):  # noqa: A002
    """``torch.floor``."""
    return call("floor", input)


def ceil(input):  # noqa: A002
    """``torch.ceil``."""
    return call("ceil", input)


def round(input, *, decimals=0):  # noqa: A001,A002  (torch's name)
    """``torch.round``."""
    return call("round", input, decimals)


def trunc(input):  # noqa: A002
    """``torch.trunc``."""
    return call("trunc", input)


def frac(input):  # noqa: A002
    """``torch.frac``."""
    return call("frac", input)


def square(input):  # noqa: A002
    """``torch.square``."""
    return call("square", input)


def sign(input):  # noqa: A002
    """``torch.sign``."""
    return call("sign", input)


def sgn(input):  # noqa: A002
    """``torch.sgn``."""
    return call("sgn", input)


def floor_divide(input, other):  # noqa: A002
    """``torch.floor_divide`` (``//``)."""
    return call("floor_divide", input, other)


def remainder(input, other):  # noqa: A002
    """``torch.remainder`` (``%``)."""
    return call("remainder", input, other)


def fmod(input, other):  # noqa: A002
    """``torch.fmod``."""
    return call("fmod", input, other)


def atan2(input, other):  # noqa: A002
    """``torch.atan2``."""
    return call("atan2", input, other)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):  # noqa: A002
    """``torch.norm`` (vector norms; ``out`` must be None)."""
    if out is not None:
        raise ShapeEnvTypeError("norm: out= is not supported on fake tensors", fix="y = norm(...) instead of out=y")
    return call("norm", input, p, dim, keepdim, dtype)


def linalg_vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """``torch.linalg.vector_norm``."""
    return call("linalg_vector_norm", x, ord, dim, keepdim, dtype)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):  # noqa: A002
    """``F.normalize`` (``out`` must be None)."""
    if out is not None:
        raise ShapeEnvTypeError("normalize: out= is not supported on fake tensors", fix="y = normalize(...) instead of out=y")
    return call("normalize", input, p, dim, eps)


# -- recurrent cells (shapeenv.ops.rules.rnn_cells) --------------------------------------------------------
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):  # noqa: A002
    """``torch.lstm_cell`` (what ``nn.LSTMCell`` calls): ``(h, c)``."""
    return call("lstm_cell", input, hx, w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):  # noqa: A002
    """``torch.gru_cell``."""
    return call("gru_cell", input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):  # noqa: A002
    """``torch.rnn_tanh_cell``."""
    return call("rnn_tanh_cell", input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):  # noqa: A002
    """``torch.rnn_relu_cell``."""
    return call("rnn_relu_cell", input, hx, w_ih, w_hh, b_ih, b_hh)


# -- more math (shapeenv.ops.rules.tensor_math) -------------------------------------------------------------
def outer(input, vec2):  # noqa: A002
    """``torch.outer``: the outer product of two 1-d tensors."""
    return call("outer", input, vec2)


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    """``torch.logsumexp`` (``dim`` required)."""
    return call("logsumexp", input, dim, keepdim)


def roll(input, shifts, dims=None):  # noqa: A002
    """``torch.roll``."""
    return call("roll", input, shifts, dims)


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    """``torch.diff``: ``n`` forward differences along ``dim``."""
    return call("diff", input, n, dim, prepend, append)


def isnan(input):  # noqa: A002
    """``torch.isnan``."""
    return call("isnan", input)


def isinf(input):  # noqa: A002
    """``torch.isinf``."""
    return call("isinf", input)


def isfinite(input):  # noqa: A002
    """``torch.isfinite``."""
    return call("isfinite", input)


def all(input, dim=None, keepdim=False):  # noqa: A001,A002
    """``torch.all`` (also with ``dim``/``keepdim``)."""
    return call("all", input, dim, keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001,A002
    """``torch.any`` (also with ``dim``/``keepdim``)."""
    return call("any", input, dim, keepdim)


def lerp(input, end, weight):  # noqa: A002
    """``torch.lerp``."""
    return call("lerp", input, end, weight)


# -- rearranging and comparing (shapeenv.ops.rules.rearrange) -------------------------------------------
def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """``F.pixel_shuffle``: ``(*, C * r * r, H, W) -> (*, C, H * r, W * r)``."""
    return call("pixel_shuffle", input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """``F.pixel_unshuffle``: ``(*, C, H * r, W * r) -> (*, C * r * r, H, W)``."""
    return call("pixel_unshuffle", input, downscale_factor)


def meshgrid(*tensors, indexing=None):
    """``torch.meshgrid`` (``indexing`` "ij", the default, or "xy")."""
    return call("meshgrid", *tensors, indexing=indexing)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``F.cosine_similarity``."""
    return call("cosine_similarity", x1, x2, dim, eps)


# -- losses (shapeenv.ops.rules.losses) ----------------------------------------------------------------------
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    """``F.mse_loss``."""
    return call("mse_loss", input, target, size_average, reduce, reduction, weight)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    """``F.l1_loss``."""
    return call("l1_loss", input, target, size_average, reduce, reduction, weight)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):  # noqa: A002
    """``F.smooth_l1_loss``."""
    return call("smooth_l1_loss", input, target, size_average, reduce, reduction, beta)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
                  reduction="mean", label_smoothing=0.0):
    """``F.cross_entropy`` (class indices or class probabilities)."""
    return call("cross_entropy", input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
             reduction="mean"):
    """``F.nll_loss``."""
    return call("nll_loss", input, target, weight, size_average, ignore_index, reduce, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    """``F.binary_cross_entropy``."""
    return call("binary_cross_entropy", input, target, weight, size_average, reduce, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                     reduction="mean", pos_weight=None):
    """``F.binary_cross_entropy_with_logits``."""
    return call("binary_cross_entropy_with_logits", input, target, weight, size_average, reduce, reduction, pos_weight)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):  # noqa: A002
    """``F.kl_div``."""
    return call("kl_div", input, target, size_average, reduce, reduction, log_target)
