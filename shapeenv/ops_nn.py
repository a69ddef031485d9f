"""The ``shapeenv.ops`` functions of the ops real models use beyond the basics (re-exported by :mod:`shapeenv.ops`).

Each has torch's name and signature (positional order, keyword names, defaults), so that torch
callables map to them by name: activations, dropout, masks and bounds, normalisations, ...

>>> from shapeenv import ShapeEnv, ops
>>> x = ShapeEnv().fake_tensor((2, 3, 8), name="x")
>>> ops.layer_norm(ops.gelu(x), (8,)).shape, ops.dropout(x, training=False) is x
((s0, s1, s2), True)
"""

from __future__ import annotations

from .rules import activations, masking, norms  # noqa: F401  (register the rules)
from .rules.registry import call

__all__ = [
    "gelu", "silu", "softplus", "hardswish", "hardsigmoid", "leaky_relu", "elu", "selu", "celu", "mish", "relu6",
    "hardtanh", "logsigmoid", "softsign", "dropout",
    "masked_fill", "tril", "triu", "clamp", "clip", "clamp_min", "clamp_max",
    "layer_norm", "rms_norm", "group_norm", "batch_norm", "instance_norm",
]


# -- activations and dropout (shapeenv.rules.activations) --------------------------------------------
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


# -- masks and bounds (shapeenv.rules.masking) -------------------------------------------------------
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


# -- normalisations (shapeenv.rules.norms) -----------------------------------------------------------
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
