"""The op table: one :class:`~shapeenv.ops.registry.OpDef` per op name, the public face of each op.

A row gives the op's docstring, its :mod:`shapeenv.ops` functions and its Tensor methods (its
torch names follow from those, see :mod:`shapeenv.torch.table`); :mod:`shapeenv.ops.forward`
makes the callables. The shape rule is registered under the same name in the module of
:mod:`shapeenv.ops.rules` named in the row's section, the numpy kernel in the module of the same
name in :mod:`shapeenv.ops.kernels.numpy`. Ops whose function or method does more than forward
its arguments (``ops.relu(x, inplace=True)``, ``x.float()``) write it by hand, in
:mod:`shapeenv.ops` or :mod:`shapeenv.tensor.methods`, and list only their other spellings here.

To add an op: write its rule (``@rule("foo")``), add a row ``D("foo", "``torch.foo``.", methods=("foo",))``
here, and a numpy kernel (``@kernel("foo")``) for the backend.

>>> BY_NAME["matmul"].functions[0].name, [m.name for m in BY_NAME["matmul"].methods]
('matmul', ['matmul', '__matmul__', '__rmatmul__'])
"""

from __future__ import annotations

from shapeenv.ops.registry import OpDef, Spelling as S

__all__ = ["OPS", "BY_NAME"]

D = OpDef.of


def _self_other(self, other):
    """The signature of binary methods: ``x.add(other)``, ``x.__radd__(other)``."""


def B(name: str, reflected: bool = False) -> S:
    """A binary method's spelling (``reflected``: ``x.__radd__(y)`` is ``add(y, x)``)."""
    return S(name, like=_self_other, reflected=reflected)


OPS: tuple[OpDef, ...] = (
    # -- elementwise: shapeenv/ops/rules/elementwise.py ----------------------------------------------------------
    D('add', '``a + b`` with broadcasting.', methods=(B('__add__'), B('__radd__', reflected=True), B('add'))),
    D('sub', '``a - b`` with broadcasting.', methods=(B('__sub__'), B('__rsub__', reflected=True), B('sub'))),
    D('mul', '``a * b`` with broadcasting.', methods=(B('__mul__'), B('__rmul__', reflected=True), B('mul'))),
    D('div', '``a / b`` with broadcasting.', methods=(B('__truediv__'), B('__rtruediv__', reflected=True), B('div'))),
    D('neg', '``-a``.', methods=('__neg__',)),
    D('eq', 'Elementwise ``a == b`` (a bool tensor).', methods=(B('eq'),)),
    D('ne', 'Elementwise ``a != b``.', methods=(B('ne'),)),
    D('lt', 'Elementwise ``a < b``.', methods=(B('__lt__'), B('lt'))),
    D('le', 'Elementwise ``a <= b``.', methods=(B('__le__'), B('le'))),
    D('gt', 'Elementwise ``a > b``.', methods=(B('__gt__'), B('gt'))),
    D('ge', 'Elementwise ``a >= b``.', methods=(B('__ge__'), B('ge'))),
    D('where', '``torch.where(cond, a, b)``.'),
    D('abs', '``torch.abs``.', methods=('__abs__', 'abs')),
    D('exp', '``torch.exp``.', methods=('exp',)),
    D('log', '``torch.log``.', methods=('log',)),
    D('sqrt', '``torch.sqrt``.', methods=('sqrt',)),
    D('cos', '``torch.cos``.', methods=('cos',)),
    D('sin', '``torch.sin``.', methods=('sin',)),
    D('tan', '``torch.tan``.', methods=('tan',)),
    D('sigmoid', '``torch.sigmoid``.', methods=('sigmoid',)),
    D('tanh', '``torch.tanh``.', methods=('tanh',)),
    D('pow', '``torch.pow``.', methods=(B('__pow__'), B('__rpow__', reflected=True), B('pow'))),
    D('maximum', '``torch.maximum``.', methods=(B('maximum'),)),
    D('minimum', '``torch.minimum``.', methods=(B('minimum'),)),
    D('add_', 'In-place ``self += other`` (bumps the version counter).',
      functions=(), methods=(B('add_'), B('__iadd__'))),
    D('relu', 'Elementwise ``max(self, 0)``.', functions=(), methods=('relu',)),
    D('to', "Convert to ``dtype`` (or another tensor's dtype); ``self`` if it is unchanged.",
      functions=(), methods=('to',)),
    D('sub_', 'In-place ``self -= other``.', functions=(), methods=(B('__isub__'), B('sub_'))),
    D('mul_', 'In-place ``self *= other``.', functions=(), methods=(B('__imul__'), B('mul_'))),
    D('div_', 'In-place ``self /= other``.', functions=(), methods=(B('__itruediv__'), B('div_'))),
    D('copy_', "In-place copy of ``src`` (broadcast to ``self``'s shape).", functions=(), methods=('copy_',)),
    D('fill_', 'In-place fill with a scalar.', functions=(), methods=('fill_',)),
    D('zero_', 'In-place fill with zeros.', functions=(), methods=('zero_',)),
    D('relu_', 'In-place relu.', functions=(), methods=('relu_',)),
    # -- views: shapeenv/ops/rules/views.py ----------------------------------------------------------------------
    D('as_strided', "``torch.as_strided``: a view of ``x``'s storage with the given sizes, strides and offset (elements).",
      methods=('as_strided',)),
    D('flatten', '``torch.flatten``.', methods=('flatten',)),
    D('unflatten', '``torch.unflatten``.', methods=('unflatten',)),
    D('view', 'A view with a new shape (one size may be -1); see :func:`shapeenv.ops.rules.views.view`.',
      functions=(), methods=('view',)),
    D('reshape', 'A view with a new shape if the strides allow, else a copy.', functions=(), methods=('reshape',)),
    D('unfold', 'Windows of ``size`` elements every ``step`` along ``dimension``, as a new last dim (a view).',
      functions=(), methods=('unfold',)),
    # -- shape_ops: shapeenv/ops/rules/shape_ops.py --------------------------------------------------------------
    D('cat', '``torch.cat``.'),
    D('stack', '``torch.stack``.'),
    D('split', '``torch.split``.', methods=('split',)),
    D('chunk', '``torch.chunk``.', methods=('chunk',)),
    D('unbind', '``torch.unbind``.', methods=('unbind',)),
    D('unsqueeze', '``torch.unsqueeze``.', methods=('unsqueeze',)),
    D('squeeze', '``torch.squeeze``.'),
    D('transpose', '``torch.transpose``.', methods=('transpose',)),
    D('t', '``torch.t``.', methods=('t',)),
    D('movedim', '``torch.movedim``.', methods=('movedim',)),
    D('flip', '``torch.flip``.'),
    D('expand', 'Broadcast size-1 dims to ``sizes`` (a view with stride 0 there).', functions=(), methods=('expand',)),
    D('permute', 'Reorder the dims (a view).', functions=(), methods=('permute',)),
    D('repeat', 'Tile ``repeats`` times per dim (a copy).', functions=(), methods=('repeat',)),
    # -- indexing: shapeenv/ops/rules/indexing.py ----------------------------------------------------------------
    D('select', '``torch.select``.', methods=('select',)),
    D('narrow', '``torch.narrow``.', methods=('narrow',)),
    D('index_select', '``torch.index_select``.', methods=('index_select',)),
    D('gather', '``torch.gather``.', methods=('gather',)),
    D('getitem', '``torch.Tensor.__getitem__``.', functions=(), methods=('__getitem__',)),
    # -- linalg: shapeenv/ops/rules/linalg.py --------------------------------------------------------------------
    D('matmul', '``torch.matmul``.', methods=(B('matmul'), B('__matmul__'), B('__rmatmul__', reflected=True))),
    D('mm', '``torch.mm``.'),
    D('bmm', '``torch.bmm``.'),
    D('linear', '``torch.nn.functional.linear``.'),
    D('outer', '``torch.outer``: the outer product of two 1-d tensors.', methods=('outer',)),
    # -- reductions: shapeenv/ops/rules/reductions.py ------------------------------------------------------------
    D('sum', '``torch.sum``.', methods=('sum',)),
    D('mean', '``torch.mean``.', methods=('mean',)),
    D('amax', '``torch.amax``.', methods=('amax',)),
    D('amin', '``torch.amin``.', methods=('amin',)),
    D('argmax', '``torch.argmax``.', methods=('argmax',)),
    D('argmin', '``torch.argmin``.', methods=('argmin',)),
    D('softmax', '``torch.softmax``.', methods=('softmax',), like=lambda x, dim, dtype=None: None),
    D('log_softmax', '``torch.log_softmax``.', methods=('log_softmax',), like=lambda x, dim, dtype=None: None),
    D('logsumexp', '``torch.logsumexp`` (``dim`` required).', methods=('logsumexp',)),
    D('all', '``torch.all`` (also with ``dim``/``keepdim``).', methods=('all',)),
    D('any', '``torch.any`` (also with ``dim``/``keepdim``).', methods=('any',)),
    # -- conv: shapeenv/ops/rules/conv.py ------------------------------------------------------------------------
    D('conv1d', '``torch.nn.functional.conv1d``.'),
    D('conv2d', '``torch.nn.functional.conv2d``.'),
    D('max_pool2d', '``torch.nn.functional.max_pool2d``.'),
    D('avg_pool2d', '``torch.nn.functional.avg_pool2d``.'),
    D('pad', '``torch.nn.functional.pad`` (constant mode).'),
    # -- creation: shapeenv/ops/rules/creation.py ----------------------------------------------------------------
    D('zeros_like', '``torch.zeros_like``.'),
    D('ones_like', '``torch.ones_like``.'),
    D('empty_like', '``torch.empty_like``.'),
    D('rand_like', '``torch.rand_like``.'),
    D('randn_like', '``torch.randn_like``.'),
    D('full_like', '``torch.full_like``.'),
    # -- data_dependent: shapeenv/ops/rules/data_dependent.py ----------------------------------------------------
    D('nonzero', '``torch.nonzero``: ``(u, ndim)`` with ``u`` unbacked.', methods=('nonzero',)),
    D('masked_select', '``torch.masked_select``.', methods=('masked_select',)),
    D('unique', '``torch.unique``.',
      methods=('unique',)),
    D('item', 'The single element of an integer or bool tensor, as an unbacked SymInt.',
      functions=(), methods=('item',)),
    # -- activations: shapeenv/ops/rules/activations.py ----------------------------------------------------------
    D('gelu', '``F.gelu``.'),
    D('silu', '``F.silu``.'),
    D('softplus', '``F.softplus``.'),
    D('hardswish', '``F.hardswish``.'),
    D('hardsigmoid', '``F.hardsigmoid``.'),
    D('leaky_relu', '``F.leaky_relu``.'),
    D('elu', '``F.elu``.'),
    D('selu', '``F.selu``.'),
    D('celu', '``F.celu``.'),
    D('mish', '``F.mish``.'),
    D('relu6', '``F.relu6``.'),
    D('hardtanh', '``F.hardtanh``.'),
    D('logsigmoid', '``F.logsigmoid``.'),
    D('softsign', '``F.softsign``.'),
    D('dropout', '``F.dropout`` (the input itself when ``training=False`` or ``p == 0``).'),
    D('dropout1d', '``F.dropout1d`` (channel-wise).'),
    D('dropout2d', '``F.dropout2d`` (channel-wise).'),
    D('dropout3d', '``F.dropout3d`` (channel-wise).'),
    D('alpha_dropout', '``F.alpha_dropout``.'),
    D('feature_alpha_dropout', '``F.feature_alpha_dropout``.'),
    # -- masking: shapeenv/ops/rules/masking.py ------------------------------------------------------------------
    D('masked_fill', '``torch.masked_fill``.', methods=('masked_fill',)),
    D('tril', '``torch.tril``.', methods=('tril',)),
    D('triu', '``torch.triu``.', methods=('triu',)),
    D('clamp', '``torch.clamp``.',
      functions=('clamp', S('clip', doc='``torch.clip`` (an alias of ``clamp``).')), methods=('clamp', 'clip')),
    D('masked_fill_', 'In-place ``masked_fill`` (``mask`` broadcasts to ``self``).',
      functions=(), methods=('masked_fill_',)),
    D('tril_', 'In-place ``tril``.', functions=(), methods=('tril_',)),
    D('triu_', 'In-place ``triu``.', functions=(), methods=('triu_',)),
    D('clamp_', 'In-place ``clamp``.', functions=(), methods=('clamp_', 'clip_')),
    # -- norms: shapeenv/ops/rules/norms.py ----------------------------------------------------------------------
    D('layer_norm', '``F.layer_norm``.'),
    D('rms_norm', '``F.rms_norm``.'),
    D('group_norm', '``F.group_norm``.'),
    D('batch_norm', '``F.batch_norm``.'),
    D('instance_norm', '``F.instance_norm``.'),
    D('_weight_norm', '``torch._weight_norm`` (the kernel of ``nn.utils.weight_norm``).'),
    # -- bitwise: shapeenv/ops/rules/bitwise.py ------------------------------------------------------------------
    D('bitwise_and', '``torch.bitwise_and`` (``&``).',
      methods=('__and__', B('__rand__', reflected=True), 'bitwise_and')),
    D('bitwise_or', '``torch.bitwise_or`` (``|``).', methods=('__or__', B('__ror__', reflected=True), 'bitwise_or')),
    D('bitwise_xor', '``torch.bitwise_xor`` (``^``).',
      methods=('__xor__', B('__rxor__', reflected=True), 'bitwise_xor')),
    D('bitwise_not', '``torch.bitwise_not`` (``~``).', methods=('__invert__', 'bitwise_not')),
    D('logical_and', '``torch.logical_and``.', methods=('logical_and',)),
    D('logical_or', '``torch.logical_or``.', methods=('logical_or',)),
    D('logical_xor', '``torch.logical_xor``.', methods=('logical_xor',)),
    D('logical_not', '``torch.logical_not``.', methods=('logical_not',)),
    D('bitwise_and_', 'In-place ``self &= other``.', functions=(), methods=('__iand__', 'bitwise_and_')),
    D('bitwise_or_', 'In-place ``self |= other``.', functions=(), methods=('__ior__', 'bitwise_or_')),
    D('bitwise_xor_', 'In-place ``self ^= other``.', functions=(), methods=('__ixor__', 'bitwise_xor_')),
    D('logical_not_', 'In-place logical not.', functions=(), methods=('logical_not_',)),
    # -- scans: shapeenv/ops/rules/scans.py ----------------------------------------------------------------------
    D('cumsum', '``torch.cumsum``.',
      methods=(S('cumsum', like=lambda self, dim, dtype=None: None),), like=lambda input, dim, *, dtype=None: None),
    D('cumprod', '``torch.cumprod``.',
      methods=(S('cumprod', like=lambda self, dim, dtype=None: None),), like=lambda input, dim, *, dtype=None: None),
    D('sort', '``torch.sort``: ``(values, indices)``.',
      methods=('sort',), like=lambda input, dim=-1, descending=False, *, stable=False: None),
    D('argsort', '``torch.argsort``.',
      methods=('argsort',), like=lambda input, dim=-1, descending=False, *, stable=False: None),
    D('topk', '``torch.topk``: ``(values, indices)``; ``k`` may be a SymInt; ``dim=None`` is the last dim.',
      methods=('topk',)),
    D('diff', '``torch.diff``: ``n`` forward differences along ``dim``.', methods=('diff',)),
    # -- statistics: shapeenv/ops/rules/statistics.py ------------------------------------------------------------
    D('var', '``torch.var`` (also the legacy ``var(input, unbiased)``).',
      methods=('var',), like=lambda input, dim=None, unbiased=None, keepdim=False, *, correction=None: None),
    D('std', '``torch.std``.',
      methods=('std',), like=lambda input, dim=None, unbiased=None, keepdim=False, *, correction=None: None),
    D('var_mean', '``torch.var_mean``: ``(var, mean)``.',
      like=lambda input, dim=None, unbiased=None, keepdim=False, *, correction=None: None),
    D('std_mean', '``torch.std_mean``: ``(std, mean)``.',
      like=lambda input, dim=None, unbiased=None, keepdim=False, *, correction=None: None),
    # -- embedding: shapeenv/ops/rules/embedding.py --------------------------------------------------------------
    D('embedding', '``F.embedding``.'),
    D('embedding_bag', '``F.embedding_bag``.'),
    D('one_hot', '``F.one_hot`` (``num_classes=-1``: a data-dependent, unbacked count).'),
    D('repeat_interleave', '``torch.repeat_interleave`` (also ``repeat_interleave(repeats)``).',
      methods=('repeat_interleave',), like=lambda input, repeats=None, dim=None, *, output_size=None: None),
    # -- setitem: shapeenv/ops/rules/setitem.py ------------------------------------------------------------------
    D('index_put', '``torch.index_put``: a copy with ``input[indices] = values``.', methods=('index_put',)),
    D('index_put_', '``torch.index_put_``: in place.', methods=('index_put_',)),
    # -- einsum: shapeenv/ops/rules/einsum.py --------------------------------------------------------------------
    D('einsum', '``torch.einsum`` (operands as arguments or one list).'),
    # -- attention: shapeenv/ops/rules/attention.py --------------------------------------------------------------
    D('scaled_dot_product_attention', '``F.scaled_dot_product_attention``.'),
    # -- pooling: shapeenv/ops/rules/pooling.py ------------------------------------------------------------------
    D('adaptive_avg_pool1d', '``F.adaptive_avg_pool1d``.'),
    D('adaptive_avg_pool2d', "``F.adaptive_avg_pool2d`` (``None`` entries keep the input's size)."),
    D('adaptive_max_pool1d', '``F.adaptive_max_pool1d``.'),
    D('adaptive_max_pool2d', '``F.adaptive_max_pool2d``.'),
    D('avg_pool1d', '``F.avg_pool1d``.'),
    D('max_pool1d', '``F.max_pool1d``.'),
    D('interpolate', '``F.interpolate``.',
      functions=('interpolate', S('upsample', doc='``F.upsample`` (deprecated in torch: ``interpolate``).', like=lambda input, size=None, scale_factor=None, mode='nearest', align_corners=None: None))),
    # -- conv_transpose: shapeenv/ops/rules/conv_transpose.py ----------------------------------------------------
    D('conv_transpose1d', '``F.conv_transpose1d``.'),
    D('conv_transpose2d', '``F.conv_transpose2d``.'),
    # -- pointwise_math: shapeenv/ops/rules/pointwise_math.py ----------------------------------------------------
    D('rsqrt', '``torch.rsqrt``.', methods=('rsqrt',)),
    D('erf', '``torch.erf``.', methods=('erf',)),
    D('erfc', '``torch.erfc``.', methods=('erfc',)),
    D('log1p', '``torch.log1p``.', methods=('log1p',)),
    D('expm1', '``torch.expm1``.', methods=('expm1',)),
    D('log2', '``torch.log2``.', methods=('log2',)),
    D('log10', '``torch.log10``.', methods=('log10',)),
    D('exp2', '``torch.exp2``.', methods=('exp2',)),
    D('reciprocal', '``torch.reciprocal``.', methods=('reciprocal',)),
    D('asin', '``torch.asin``.', methods=('asin',)),
    D('acos', '``torch.acos``.', methods=('acos',)),
    D('atan', '``torch.atan``.', methods=('atan',)),
    D('sinh', '``torch.sinh``.', methods=('sinh',)),
    D('cosh', '``torch.cosh``.', methods=('cosh',)),
    D('asinh', '``torch.asinh``.', methods=('asinh',)),
    D('atanh', '``torch.atanh``.', methods=('atanh',)),
    D('floor', '``torch.floor``.', methods=('floor',)),
    D('ceil', '``torch.ceil``.', methods=('ceil',)),
    D('round', '``torch.round``.', methods=('round',), like=lambda input, *, decimals=0: None),
    D('trunc', '``torch.trunc``.', methods=('trunc',)),
    D('frac', '``torch.frac``.', methods=('frac',)),
    D('square', '``torch.square``.', methods=('square',)),
    D('sign', '``torch.sign``.', methods=('sign',)),
    D('sgn', '``torch.sgn``.', methods=('sgn',)),
    D('floor_divide', '``torch.floor_divide`` (``//``).',
      methods=('__floordiv__', B('__rfloordiv__', reflected=True), 'floor_divide')),
    D('remainder', '``torch.remainder`` (``%``).', methods=('__mod__', B('__rmod__', reflected=True), 'remainder')),
    D('fmod', '``torch.fmod``.', methods=('fmod',)),
    D('atan2', '``torch.atan2``.', methods=('atan2',)),
    D('linalg_vector_norm', '``torch.linalg.vector_norm``.',
      like=lambda x, ord=2, dim=None, keepdim=False, *, dtype=None: None),
    D('norm', 'The vector norm over ``dim`` (all dims for None).', functions=(), methods=('norm',)),
    D('isnan', '``torch.isnan``.', methods=('isnan',)),
    D('isinf', '``torch.isinf``.', methods=('isinf',)),
    D('isfinite', '``torch.isfinite``.', methods=('isfinite',)),
    D('lerp', '``torch.lerp``.', methods=('lerp',)),
    D('lerp_', "In-place ``lerp`` (the broadcast shape must be ``self``'s).", functions=(), methods=('lerp_',)),
    # -- rnn_cells: shapeenv/ops/rules/rnn_cells.py --------------------------------------------------------------
    D('lstm_cell', '``torch.lstm_cell`` (what ``nn.LSTMCell`` calls): ``(h, c)``.'),
    D('gru_cell', '``torch.gru_cell``.'),
    D('rnn_tanh_cell', '``torch.rnn_tanh_cell``.'),
    D('rnn_relu_cell', '``torch.rnn_relu_cell``.'),
    # -- rearrange: shapeenv/ops/rules/rearrange.py --------------------------------------------------------------
    D('pixel_shuffle', '``F.pixel_shuffle``: ``(*, C * r * r, H, W) -> (*, C, H * r, W * r)``.'),
    D('pixel_unshuffle', '``F.pixel_unshuffle``: ``(*, C, H * r, W * r) -> (*, C * r * r, H, W)``.'),
    D('roll', '``torch.roll``.', methods=('roll',)),
    D('cosine_similarity', '``F.cosine_similarity``.'),
    # -- losses: shapeenv/ops/rules/losses.py --------------------------------------------------------------------
    D('mse_loss', '``F.mse_loss``.'),
    D('l1_loss', '``F.l1_loss``.'),
    D('smooth_l1_loss', '``F.smooth_l1_loss``.'),
    D('cross_entropy', '``F.cross_entropy`` (class indices or class probabilities).'),
    D('nll_loss', '``F.nll_loss``.'),
    D('binary_cross_entropy', '``F.binary_cross_entropy``.'),
    D('binary_cross_entropy_with_logits', '``F.binary_cross_entropy_with_logits``.'),
    D('kl_div', '``F.kl_div``.'),
)

#: The row of each op name.
BY_NAME: dict[str, OpDef] = {d.name: d for d in OPS}
