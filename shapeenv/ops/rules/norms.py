"""Normalisations: ``layer_norm``, ``rms_norm``, ``group_norm``, ``batch_norm``, ``instance_norm``, ``_weight_norm``.

Each keeps its input's shape and dtype and validates what torch validates, with the sizes asked
through :func:`~shapeenv.ops.common.require` (a guard only when the hints alone decide):

* ``layer_norm``/``rms_norm``: ``normalized_shape`` (a non-empty list of sizes) equals the
  input's trailing dims; ``weight``/``bias`` have exactly that shape.
* ``group_norm``: at least 2-d, channels (dim 1) divisible by ``num_groups``, a per-channel
  ``weight``/``bias``, and (as ``F.group_norm``'s ``_verify_batch_size``) more than one value
  per group: ``N*C/G * prod(spatial) != 1``.
* ``batch_norm``: at least 2-d, per-channel running stats and affine parameters; running stats
  are required in evaluation mode; in training, ``N * prod(spatial) != 1``.
* ``instance_norm``: per-channel stats and parameters; with ``use_input_stats`` more than one
  spatial element (``prod(spatial) != 1``), else running stats are required.
* ``_weight_norm`` (``torch.nn.utils.weight_norm``'s kernel): ``v * (g / norm_except_dim(v, 2, dim))``,
  so ``g`` broadcasts against ``v`` and the result is the product's (wav2vec2's positional conv).

Layouts are torch's CPU kernels': ``layer_norm`` and ``instance_norm`` write a contiguous
result; ``group_norm`` and ``batch_norm`` keep a channels-last input channels-last (they allocate
in the input's ``suggest_memory_format``); ``rms_norm`` too (measured on torch 2.13's CPU:
a transposed input gives a contiguous result, a channels-last one a channels-last result).

Dtypes: a floating-point input; parameters of the input's dtype, or float32 parameters for a
float16/bfloat16 input (torch's CPU "mixed dtype" rule for ``layer_norm``).

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((2, 8, 5, 5), name="x", dynamic={0})
>>> layer_norm(x, (5,)).shape, group_norm(x, 4).shape, len(env.guards)
((s0, 8, 5, 5), (s0, 8, 5, 5), 0)
"""

from __future__ import annotations

from typing import Any, Sequence

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import bfloat16, float16, float32
from shapeenv.tensor import layout
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.rules.elementwise import mul
from shapeenv.ops.common import check_size, check_tensor, fmt_shape, new_tensor, prod, require
from shapeenv.ops.registry import rule

__all__ = ["layer_norm", "rms_norm", "group_norm", "batch_norm", "instance_norm", "weight_norm"]


def _floating(op: str, x: FakeTensor) -> None:
    if not x.dtype.is_floating_point:
        raise ShapeError(f"{op}: not implemented for {x.dtype} inputs; normalisation needs a floating-point tensor",
                         fix="convert the input first: x.float()")


def _normalized(op: str, x: FakeTensor, normalized_shape: Any) -> tuple:
    if not isinstance(normalized_shape, (list, tuple)):
        raise ShapeError(f"{op}: normalized_shape must be a list or tuple of ints, got {normalized_shape!r}",
                         fix=f"pass a tuple: {op}(x, ({normalized_shape!r},))")
    shape = tuple(check_size(s, op, "normalized_shape") for s in normalized_shape)
    if not shape:
        raise ShapeError(f"{op}: Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
                         "one element, but got normalized_shape = []")
    message = lambda: (f"{op}: Given normalized_shape={fmt_shape(shape)}, expected input with shape "  # noqa: E731
                       f"[*, {', '.join(str(s) for s in shape)}], but got input of size {fmt_shape(x.shape)}")
    if x.ndim < len(shape):
        raise ShapeError(message())
    for want, have in zip(shape, x.shape[x.ndim - len(shape):]):
        require(have == want, message)
    return shape


def _param(op: str, what: str, p: Any, x: FakeTensor, shape: Sequence[Any], *, mixed: bool = True) -> None:
    """``p`` (if given) is a tensor of exactly ``shape`` and a dtype the kernel accepts for ``x``."""
    if p is None:
        return
    check_tensor(p, op, what)
    message = lambda: (f"{op}: Expected {what} to be of same shape as normalized_shape, but got {what} of shape "  # noqa: E731
                       f"{fmt_shape(p.shape)} and normalized_shape = {fmt_shape(shape)}")
    if p.ndim != len(shape):
        raise ShapeError(message())
    for a, b in zip(p.shape, shape):
        require(a == b, message)
    if mixed and p.dtype != x.dtype and not (x.dtype in (float16, bfloat16) and p.dtype == float32):
        raise ShapeError(f"{op}: mixed dtype (CPU): expect parameter to have scalar type of {x.dtype} (got {what} of "
                         f"{p.dtype})", fix=f"convert the parameter: {what}.to(x.dtype)")


def _channel_param(op: str, what: str, p: Any, channels: Any) -> None:
    """A per-channel tensor: ``channels`` elements."""
    if p is None:
        return
    check_tensor(p, op, what)
    n = p.numel()
    require(n == channels, lambda: (f"{op}: {what} should contain {channels} elements not {n} "
                                    f"(shape {fmt_shape(p.shape)})"))


def _channels_first_input(op: str, input: FakeTensor) -> None:
    """The input of a norm over channels (batch/instance norm): a floating-point ``(N, C, *)`` tensor."""
    check_tensor(input, op)
    if input.ndim < 2:
        raise ShapeError(f"{op}: expected a 2D or higher input (N, C, *), got shape {fmt_shape(input.shape)}")
    _floating(op, input)


def _channel_stats(op: str, input: FakeTensor, running_mean: Any, running_var: Any, weight: Any, bias: Any,
                   updated: bool) -> None:
    """Each given per-channel tensor has ``C`` elements; running statistics that are ``updated`` (training) are
    written in place: their version goes up once (once for one tensor passed as both)."""
    c = input.shape[1]
    for what, p in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        _channel_param(op, what, p, c)
    if updated:
        for stat in {id(s): s for s in (running_mean, running_var) if s is not None}.values():
            stat.storage.version += 1


def _suggested_layout(x: FakeTensor) -> tuple:
    fmt = layout.suggest_memory_format(x.shape, x.stride())
    return layout.format_strides(x.shape, fmt)


@rule("layer_norm")
def layer_norm(input: FakeTensor, normalized_shape: Any, weight: FakeTensor | None = None,
               bias: FakeTensor | None = None, eps: float = 1e-05) -> FakeTensor:
    """``F.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)``: a contiguous result.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 6), name="x")
    >>> layer_norm(x.t(), (x.shape[0],)).stride()
    (s0, 1)
    """
    check_tensor(input, "layer_norm")
    _floating("layer_norm", input)
    shape = _normalized("layer_norm", input, normalized_shape)
    _param("layer_norm", "weight", weight, input, shape)
    _param("layer_norm", "bias", bias, input, shape)
    return new_tensor(input.env, input.shape, input.dtype)


@rule("rms_norm")
def rms_norm(input: FakeTensor, normalized_shape: Any, weight: FakeTensor | None = None,
             eps: float | None = None) -> FakeTensor:
    """``F.rms_norm(input, normalized_shape, weight=None, eps=None)``: the input's dtype, its suggested memory format.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3, 4, 5), dynamic=False).contiguous(memory_format="channels_last")
    >>> rms_norm(x, (5,)).stride()
    (60, 1, 15, 3)
    """
    check_tensor(input, "rms_norm")
    _floating("rms_norm", input)
    shape = _normalized("rms_norm", input, normalized_shape)
    _param("rms_norm", "weight", weight, input, shape, mixed=False)
    return new_tensor(input.env, input.shape, input.dtype, _suggested_layout(input))


@rule("group_norm")
def group_norm(input: FakeTensor, num_groups: Any, weight: FakeTensor | None = None,
               bias: FakeTensor | None = None, eps: float = 1e-05) -> FakeTensor:
    """``F.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)``.

    >>> from shapeenv import ShapeEnv
    >>> group_norm(ShapeEnv().fake_tensor((2, 6, 5), dynamic=False), 3).shape
    (2, 6, 5)
    """
    check_tensor(input, "group_norm")
    if input.ndim < 2:
        raise ShapeError(f"group_norm: Expected at least 2 dimensions for input tensor but received {input.ndim}")
    _floating("group_norm", input)
    groups = check_size(num_groups, "group_norm", "num_groups")
    require(groups > 0, lambda: f"group_norm: num_groups must be positive, got {groups}")
    n, c = input.shape[0], input.shape[1]
    require(c % groups == 0, lambda: (f"group_norm: Expected number of channels in input to be divisible by "
                                      f"num_groups, but got input of shape {fmt_shape(input.shape)} and "
                                      f"num_groups={groups}"))
    values = (n * c // groups) * prod(input.shape[2:])
    require(values != 1, lambda: (f"group_norm: Expected more than 1 value per channel when training, got input "
                                  f"size {fmt_shape(input.shape)}"))
    for what, p in (("weight", weight), ("bias", bias)):
        if p is not None:
            check_tensor(p, "group_norm", what)
            if p.ndim != 1:
                raise ShapeError(f"group_norm: Expected {what} to be a vector of size equal to the number of channels "
                                 f"in input, but got {what} of shape {fmt_shape(p.shape)} and input of shape "
                                 f"{fmt_shape(input.shape)}")
            require(p.shape[0] == c, lambda p=p, what=what: (
                f"group_norm: Expected {what} to be a vector of size equal to the number of channels in input, but "
                f"got {what} of shape {fmt_shape(p.shape)} and input of shape {fmt_shape(input.shape)}"))
    return new_tensor(input.env, input.shape, input.dtype, _suggested_layout(input))


@rule("batch_norm")
def batch_norm(input: FakeTensor, running_mean: FakeTensor | None, running_var: FakeTensor | None,
               weight: FakeTensor | None = None, bias: FakeTensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-05) -> FakeTensor:
    """``F.batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
    eps=1e-05)``: in training the running stats (if given) are updated in place.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((8, 3, 4, 4), name="x", dynamic={0})
    >>> stats = env.fake_tensor((3,), name="m", dynamic=False)
    >>> batch_norm(x, stats, stats, training=True).shape, stats.version
    ((s0, 3, 4, 4), 1)
    """
    _channels_first_input("batch_norm", input)
    if training:
        values = input.shape[0] * prod(input.shape[2:])
        require(values != 1, lambda: (f"batch_norm: Expected more than 1 value per channel when training, got "
                                      f"input size {fmt_shape(input.shape)}"))
    elif running_mean is None or running_var is None:
        raise ShapeError(f"batch_norm: running_{'mean' if running_mean is None else 'var'} must be defined in "
                         "evaluation mode", fix="pass the running statistics, or training=True")
    _channel_stats("batch_norm", input, running_mean, running_var, weight, bias, updated=training)
    return new_tensor(input.env, input.shape, input.dtype, _suggested_layout(input))


@rule("instance_norm")
def instance_norm(input: FakeTensor, running_mean: FakeTensor | None = None, running_var: FakeTensor | None = None,
                  weight: FakeTensor | None = None, bias: FakeTensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-05) -> FakeTensor:
    """``F.instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
    momentum=0.1, eps=1e-05)``: a contiguous result.

    >>> from shapeenv import ShapeEnv
    >>> instance_norm(ShapeEnv().fake_tensor((2, 3, 4))).shape
    (s0, s1, s2)
    """
    _channels_first_input("instance_norm", input)
    if use_input_stats:
        spatial = prod(input.shape[2:])
        require(spatial != 1, lambda: (f"instance_norm: Expected more than 1 spatial element when training, got "
                                       f"input size {fmt_shape(input.shape)}"))
    elif running_mean is None or running_var is None:
        raise ShapeError("instance_norm: Expected running_mean and running_var to be defined when use_input_stats "
                         "is false", fix="pass the running statistics, or use_input_stats=True")
    _channel_stats("instance_norm", input, running_mean, running_var, weight, bias, updated=use_input_stats)
    return new_tensor(input.env, input.shape, input.dtype)


@rule("_weight_norm")
def weight_norm(v: FakeTensor, g: FakeTensor, dim: int = 0) -> FakeTensor:
    """``torch._weight_norm(v, g, dim=0)``: ``v * (g / norm_except_dim(v, 2, dim))``, shaped like ``v``.

    ``g`` has ``v``'s size along ``dim`` and 1 elsewhere (one norm over everything for ``dim=-1``).
    A ``g`` of another shape is a ShapeError; torch's CPU kernel for the first or last dim does
    not check it and reads past ``g`` (measured on torch 2.13: garbage values, no error).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); v = env.fake_tensor((8, 4, 16), name="v", dynamic=False)
    >>> g = env.fake_tensor((1, 1, 16), name="g", dynamic=False)
    >>> weight_norm(v, g, 2).shape
    (8, 4, 16)
    """
    check_tensor(v, "_weight_norm")
    check_tensor(g, "_weight_norm")
    _floating("_weight_norm", v)
    if not isinstance(dim, int) or not -1 <= dim < max(v.ndim, 1):
        raise ShapeError(f"_weight_norm: dim {dim!r} is out of range for a {v.ndim}-d weight",
                         fix="weight_norm(module, dim=d) with 0 <= d < weight.dim(), or dim=None for one norm")
    if dim != -1:
        want = tuple(v.shape[d] if d == dim else 1 for d in range(v.ndim))
        require(g.ndim == v.ndim and all(a == b for a, b in zip(g.shape, want)), lambda: (
            f"_weight_norm: g of shape {fmt_shape(g.shape)} does not match v of shape {fmt_shape(v.shape)} "
            f"normalised over every dim but {dim} (expected {fmt_shape(want)})"))
    return mul(v, g)
