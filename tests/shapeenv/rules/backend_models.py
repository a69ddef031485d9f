"""numpy-backend rows for the ops real models use: each is exported at one size, run by the numpy
backend at another, and compared with torch eager (``tests/shapeenv/test_numpy_backend_torch.py``)
and with the program's predicted shapes (``tests/shapeenv/test_numpy_backend.py``).

Rows are ``(name, fn(T, *xs), example specs, run specs)``; specs as in
:class:`tests.shapeenv.backend_cases.Case` (``("f", shape)`` normal float32, ``("p", shape)``
positive, ``("i", shape, high)`` int64, ``("b", shape)`` bool).

>>> len(BACKEND_ROWS) > 20
True
"""

from __future__ import annotations

__all__ = ["BACKEND_ROWS"]


def f(*shape):
    return ("f", shape)


def p(*shape):
    return ("p", shape)


def b(*shape):
    return ("b", shape)


def i(high, *shape):
    return ("i", shape, high)


def _batch_norm_train(T, x, m, v):
    """The running stats are cloned first: a program's inputs are not its to update (torch reruns on them)."""
    return T.batch_norm(x, m, v, None, None, True, 0.2), m, v


def _instance_norm_running(T, x, m, v):
    return T.instance_norm(x, m, v), m, v, T.instance_norm(x, m, v, use_input_stats=False)


BACKEND_ROWS: list[tuple] = [
    ("gelu", lambda T, x: (T.gelu(x), T.gelu(x.t(), approximate="tanh")), (f(4, 3),), (f(6, 5),)),
    ("silu/softplus/mish", lambda T, x: (T.silu(x), T.softplus(x * 10, 2, 5), T.mish(x)), (f(4, 3),), (f(5, 2),)),
    ("hard activations", lambda T, x: (T.hardswish(x), T.hardsigmoid(x * 4), T.hardtanh(x, -0.5, 0.5), T.relu6(x * 9)),
     (f(4, 3),), (f(5, 7),)),
    ("elu family", lambda T, x: (T.elu(x, 0.5), T.selu(x), T.celu(x, 2.0), T.leaky_relu(x, 0.2)), (f(4, 3),), (f(6, 3),)),
    ("logsigmoid/softsign", lambda T, x: (T.logsigmoid(x.t()), T.softsign(x)), (f(4, 3),), (f(5, 3),)),
    ("relu6 int", lambda T, x: T.relu6(x), (i(10, 4, 3),), (i(10, 5, 2),)),
    ("inplace activations", lambda T, x: T.silu(T.leaky_relu(x.clone(), 0.1, True), inplace=True) + x,
     (f(4, 3),), (f(7, 3),)),
    ("relu inplace", lambda T, x: T.relu(x.clone(), inplace=True) * 2, (f(4, 3),), (f(5, 3),)),
    ("dropout eval, p=0, p=1", lambda T, x: (T.dropout(x, 0.5, False), T.dropout(x, 0.0), T.dropout(x, 1.0)),
     (f(4, 3),), (f(6, 3),)),
    ("dropout variants, eval and p=1", lambda T, x: (T.dropout2d(x, 0.5, False), T.dropout1d(x[0], 0.3, False), T.alpha_dropout(x),
                                                     T.feature_alpha_dropout(x, 0.2), T.dropout3d(x, 1.0), T.dropout1d(x, 1.0)),
     (f(2, 4, 3),), (f(3, 5, 2),)),
    ("masked_fill", lambda T, x, m: (x.masked_fill(m, -1.0), T.masked_fill(x[0], m, 2)), (f(4, 3), b(4, 3)),
     (f(5, 6), b(5, 6))),
    ("masked_fill broadcast", lambda T, x, m: x.masked_fill(m[:, None], 0.0), (f(3,), b(4,)), (f(5,), b(7,))),
    ("masked_fill_", lambda T, x, m: x.clone().masked_fill_(m, 3.0), (f(4, 3), b(3,)), (f(6, 5), b(5,))),
    ("causal mask", lambda T, x: x.masked_fill(T.triu(T.ones(x.shape[-1], x.shape[-1], dtype=T.bool), 1), 0.0),
     (f(2, 4, 4),), (f(3, 6, 6),)),
    ("tril/triu", lambda T, x: (T.tril(x), T.triu(x.t(), 1), x.tril(-1), x.clone().triu_(2)), (f(4, 5),), (f(6, 3),)),
    ("clamp scalars", lambda T, x: (T.clamp(x, -0.5), T.clamp(x, max=0.2), x.clamp(-0.1, 0.1), T.clip(x.t(), 0, 1)),
     (f(4, 3),), (f(5, 2),)),
    ("clamp tensors", lambda T, x, lo: (T.clamp(x, lo), x.clamp(lo, lo + 1)), (f(4, 3), f(3,)), (f(6, 5), f(5,))),
    ("clamp int", lambda T, x: (x.clamp(2, 5), x.clamp(0.5)), (i(10, 4, 3),), (i(10, 6, 2),)),
    ("clamp_", lambda T, x: x.clone().clamp_(0.0), (f(4, 3),), (f(5, 3),)),
    ("layer_norm", lambda T, x, w, bias: (T.layer_norm(x, (x.shape[-1],), w, bias), T.layer_norm(x, x.shape[-2:])),
     (f(2, 3, 4), f(4), f(4)), (f(3, 5, 6), f(6), f(6))),
    ("rms_norm", lambda T, x, w: (T.rms_norm(x, (x.shape[-1],), w, 1e-6), T.rms_norm(x.transpose(0, 1), (x.shape[0],))),
     (f(3, 4), f(4)), (f(5, 6), f(6))),
    ("group_norm", lambda T, x, w, bias: (T.group_norm(x, 2, w, bias), T.group_norm(x.transpose(2, 3), 1)),
     (f(2, 4, 3, 3), f(4), f(4)), (f(3, 4, 5, 2), f(4), f(4))),
    ("batch_norm eval", lambda T, x, m, v, w: T.batch_norm(x, m, v, w, w), (f(2, 3, 4), f(3), p(3), f(3)),
     (f(4, 3, 5), f(3), p(3), f(3))),
    ("batch_norm train", lambda T, x, m, v: _batch_norm_train(T, x, m.clone(), v.clone()),
     (f(4, 3, 2, 2), f(3), p(3)), (f(5, 3, 3, 2), f(3), p(3))),
    ("instance_norm", lambda T, x, w: (T.instance_norm(x, weight=w, bias=w), T.instance_norm(x.transpose(0, 1))),
     (f(2, 3, 4), f(3)), (f(3, 3, 6), f(3))),
    ("instance_norm running", lambda T, x, m, v: _instance_norm_running(T, x, m.clone(), v.clone()),
     (f(2, 3, 4), f(3), p(3)), (f(4, 3, 5), f(3), p(3))),
    ("bitwise", lambda T, a, b: (a & b, a | b, a ^ b, ~a, T.bitwise_and(a, 3)), (i(8, 4, 3), i(8, 3)), (i(8, 5, 2), i(8, 2))),
    ("bool ops", lambda T, m, n: (m & n, m | True, ~m, T.logical_xor(m, n), T.logical_not(n)), (b(4, 3), b(3,)), (b(6, 2), b(2,))),
    ("logical", lambda T, x, y: (T.logical_and(x, y), T.logical_or(x > 0, y)), (f(4, 3), f(4, 3)), (f(5, 2), f(5, 2))),
    ("cumsum/cumprod", lambda T, x, k: (T.cumsum(x, 1), x.cumsum(0), T.cumprod(x * 0.5, -1), T.cumsum(k, 0)),
     (f(4, 3), i(5, 4, 3)), (f(5, 6), i(5, 2, 2))),
    ("sort/argsort", lambda T, x: (T.sort(x), T.sort(x.t(), 0, True), T.argsort(x, 0), x.argsort(descending=True)),
     (f(4, 3),), (f(6, 5),)),
    ("topk", lambda T, x: (T.topk(x, 2), T.topk(x, x.shape[0] // 2, 0, largest=False)), (f(4, 6),), (f(6, 7),)),
    ("var/std", lambda T, x: (T.var(x, 0), x.std(1, keepdim=True), T.var(x, correction=0), T.std_mean(x, -1), T.var_mean(x, 0, False)),
     (f(4, 3),), (f(7, 5),)),
    ("embedding", lambda T, idx, w: (T.embedding(idx, w), T.embedding(idx.t(), w, padding_idx=0)), (i(10, 3, 2), f(10, 4)),
     (i(10, 5, 3), f(10, 4))),
    ("embedding_bag 2d", lambda T, idx, w: (T.embedding_bag(idx, w), T.embedding_bag(idx, w, mode="sum"),
                                            T.embedding_bag(idx, w, mode="max", padding_idx=1)), (i(10, 3, 2), f(10, 4)),
     (i(10, 5, 3), f(10, 4))),
    ("one_hot", lambda T, idx: T.one_hot(idx, 6), (i(6, 3, 2),), (i(6, 5, 4),)),
    ("repeat_interleave int", lambda T, x: (T.repeat_interleave(x, 2), x.repeat_interleave(3, dim=1)), (f(3, 2),), (f(4, 5),)),
    ("setitem", lambda T, x, v: _setitems(x.clone(), v), (f(4, 5), f(4)), (f(6, 3), f(6))),
    ("index_put", lambda T, x, idx, v: (T.index_put(x, (idx,), v), x.clone().index_put_((idx,), v, accumulate=True)),
     (f(4, 5), i(4, 3), f(5)), (f(6, 2), i(6, 3), f(2))),
    ("einsum", lambda T, a, b: (T.einsum("bij,bjk->bik", a, b), T.einsum("bij->bji", a), T.einsum("bij->b", a),
                                T.einsum("...ij,...jk", a, b)), (f(2, 3, 4), f(2, 4, 5)), (f(3, 2, 6), f(3, 6, 4))),
    ("sdpa", lambda T, q, k, v: (T.scaled_dot_product_attention(q, k, v), T.scaled_dot_product_attention(q, k, v, is_causal=True),
                                 T.scaled_dot_product_attention(q, k, v, scale=0.3)),
     (f(2, 4, 5, 8), f(2, 4, 6, 8), f(2, 4, 6, 7)), (f(3, 4, 3, 8), f(3, 4, 7, 8), f(3, 4, 7, 7))),
    ("sdpa mask", lambda T, q, k, v, m: T.scaled_dot_product_attention(q, k, v, attn_mask=m),
     (f(2, 4, 5, 8), f(2, 4, 6, 8), f(2, 4, 6, 7), b(5, 6)), (f(3, 4, 3, 8), f(3, 4, 4, 8), f(3, 4, 4, 7), b(3, 4))),
    ("sdpa gqa, float mask", lambda T, q, k, v, m: T.scaled_dot_product_attention(q, k, v, m, enable_gqa=True),
     (f(2, 4, 5, 8), f(2, 2, 6, 8), f(2, 2, 6, 7), f(5, 6)), (f(3, 4, 3, 8), f(3, 2, 4, 8), f(3, 2, 4, 7), f(3, 4))),
    ("adaptive pools", lambda T, x: (T.adaptive_avg_pool2d(x, (3, 2)), T.adaptive_max_pool2d(x, (2, None), True),
                                     T.adaptive_avg_pool1d(x[0], 3), T.adaptive_max_pool1d(x[0], 2, True)),
     (f(2, 3, 7, 5),), (f(3, 3, 9, 4),)),
    ("pool1d", lambda T, x: (T.avg_pool1d(x, 3), T.avg_pool1d(x, 3, 2, 1, True, False), T.max_pool1d(x, 2),
                             T.max_pool1d(x, 3, 2, 1, 2, True, True)), (f(2, 3, 10),), (f(3, 2, 13),)),
    ("interpolate", lambda T, x: (T.interpolate(x, scale_factor=2), T.interpolate(x, size=(5, 3)),
                                  T.interpolate(x, scale_factor=1.5, mode="bilinear"),
                                  T.interpolate(x, size=(6, 7), mode="bilinear", align_corners=True),
                                  T.interpolate(x, size=(5, 4), mode="bicubic"), T.interpolate(x, size=(2, 3), mode="area"),
                                  T.interpolate(x, size=(5, 5), mode="nearest-exact")), (f(1, 2, 4, 6),), (f(1, 3, 5, 8),)),
    ("interpolate 1d/3d", lambda T, x, y: (T.interpolate(x, scale_factor=2, mode="linear"), T.interpolate(x, size=7),
                                           T.interpolate(y, scale_factor=2, mode="trilinear")),
     (f(2, 3, 5), f(1, 2, 2, 3, 4)), (f(3, 2, 6), f(1, 3, 3, 2, 3))),
    ("conv_transpose2d", lambda T, x, w, bias: (T.conv_transpose2d(x, w, bias), T.conv_transpose2d(x, w, None, 2, 1, 1),
                                                T.conv_transpose2d(x, w, None, (2, 1), (0, 1), (1, 0), 1, 2)),
     (f(2, 3, 5, 6), f(3, 4, 3, 3), f(4)), (f(3, 3, 4, 7), f(3, 4, 3, 3), f(4))),
    ("conv_transpose groups, 1d", lambda T, x, w, y, v: (T.conv_transpose2d(x, w, groups=2), T.conv_transpose1d(y, v, stride=3, padding=1, output_padding=2)),
     (f(2, 4, 5, 5), f(4, 3, 2, 2), f(2, 3, 6), f(3, 5, 4)), (f(3, 4, 3, 6), f(4, 3, 2, 2), f(2, 3, 9), f(3, 5, 4))),
    ("float math", lambda T, x: (T.rsqrt(x), T.erf(x), T.erfc(x), T.log1p(x), T.expm1(x), T.log2(x), T.log10(x), T.exp2(x),
                                 T.reciprocal(x), T.atan(x), T.sinh(x), T.cosh(x), T.asinh(x)), (p(4, 3),), (p(5, 2),)),
    ("bounded math", lambda T, x: (T.asin(x * 0.4), T.acos(x * 0.4), T.atanh(x * 0.4)), (p(4, 3),), (p(5, 2),)),
    ("rounding", lambda T, x: (T.floor(x), T.ceil(x), T.round(x * 3), T.trunc(x), T.frac(x), T.square(x), T.sign(x), T.sgn(x),
                               T.round(x, decimals=1)), (f(4, 3),), (f(6, 5),)),
    ("divisions", lambda T, x, y: (x // y, x % y, T.fmod(x, y), 7.0 // x, x % 2.5, T.atan2(x, y)), (p(4, 3), p(3)), (p(6, 5), p(5))),
    ("int divisions", lambda T, k: (k // 3, k % 4, T.fmod(k - 5, 3), T.remainder(k - 5, 3)), (i(20, 4, 3),), (i(20, 5, 2),)),
    ("norms", lambda T, x: (T.norm(x), T.norm(x, dim=-1), x.norm(1, 0, True), T.linalg_vector_norm(x, 3, (0, 1)),
                            T.normalize(x, dim=-1), T.normalize(x.t(), 1.0, 0)), (f(4, 3),), (f(6, 5),)),
    ("pad modes", lambda T, x: (T.pad(x, (1, 2), mode="reflect"), T.pad(x, (2, 1), mode="replicate"), T.pad(x, (2, 3), mode="circular"),
                                T.pad(x, (1, 1, 0, 1), mode="reflect")), (f(2, 4, 5),), (f(3, 4, 6),)),
    ("lstm/gru/rnn cells", lambda T, x, h, c, wi, wh, b, gi, gh, ri, rh: (T.lstm_cell(x, (h, c), wi, wh, b, b), T.gru_cell(x, h, gi, gh),
                                                                         T.rnn_tanh_cell(x, h, ri, rh), T.rnn_relu_cell(x, h, ri, rh)),
     (f(3, 6), f(3, 8), f(3, 8), f(32, 6), f(32, 8), f(32), f(24, 6), f(24, 8), f(8, 6), f(8, 8)),
     (f(5, 6), f(5, 8), f(5, 8), f(32, 6), f(32, 8), f(32), f(24, 6), f(24, 8), f(8, 6), f(8, 8))),
    ("outer/logsumexp/roll", lambda T, x, v: (T.outer(x[0], v), T.logsumexp(x, 1), T.logsumexp(x.t(), 0, keepdim=True),
                                              T.roll(x, 1), T.roll(x, (1, -2), (0, 1)), x.roll(2, 0)),
     (f(4, 3), f(5)), (f(6, 5), f(7))),
    ("diff", lambda T, x, p, b: (T.diff(x), T.diff(x, 2, 0), T.diff(x, 1, 0, prepend=p, append=p), T.diff(b, dim=0),
                                 T.diff(x, 0)),
     (f(4, 3), f(2, 3), b(4, 3)), (f(6, 3), f(2, 3), b(5, 2))),
    ("isnan/all/any", lambda T, x: (T.isnan(T.log(x)), T.isinf(1 / (x * 0)), x.isfinite(), (x > 0).all(), (x > 0).any(1),
                                    T.all(x > -1, 0, keepdim=True), T.any(x)),
     (f(4, 3),), (f(5, 2),)),
    ("lerp", lambda T, x, e, w: (T.lerp(x, e, 0.3), T.lerp(x, e, w), x.clone().lerp_(e, 0.7)), (f(4, 3), f(3), p(4, 1)),
     (f(6, 5), f(5), p(6, 1))),
    ("pixel_shuffle/unshuffle", lambda T, x: (T.pixel_shuffle(x, 2), T.pixel_unshuffle(x, 1), T.pixel_unshuffle(T.pixel_shuffle(x, 2), 2),
                                              T.pixel_shuffle(x[0], 2)),
     (f(2, 8, 3, 5),), (f(3, 12, 4, 2),)),
    ("meshgrid/cosine_similarity", lambda T, a, b, x, y: (T.meshgrid(a, b, indexing="ij"), T.meshgrid(a, b, indexing="xy"),
                                                          T.cosine_similarity(x, y), T.cosine_similarity(x, y[0], dim=-1)),
     (f(3), f(4), f(4, 3), f(4, 3)), (f(5), f(2), f(6, 7), f(6, 7))),
    ("pointwise losses", lambda T, x, y: (T.mse_loss(x, y), T.mse_loss(x, y, reduction="none"), T.l1_loss(x, y, reduction="sum"),
                                          T.l1_loss(x.t(), y.t(), reduction="none"), T.smooth_l1_loss(x * 3, y, beta=0.5),
                                          T.smooth_l1_loss(x, y, reduction="none"), T.mse_loss(x, y, weight=y * y)),
     (f(4, 3), f(4, 3)), (f(6, 5), f(6, 5))),
    ("cross_entropy/nll_loss", lambda T, x, t, w, z, u, p: (
        T.cross_entropy(x, t), T.cross_entropy(x, t, reduction="none"), T.cross_entropy(x, t, w, reduction="sum"),
        T.cross_entropy(x, t, ignore_index=1), T.cross_entropy(x, t, w, label_smoothing=0.1),
        T.cross_entropy(x, t, label_smoothing=0.2, reduction="none"), T.cross_entropy(x, T.softmax(p, 1)),
        T.cross_entropy(x, T.softmax(p, 1), reduction="none", label_smoothing=0.1),
        T.cross_entropy(z, u, reduction="none"), T.cross_entropy(z, u), T.nll_loss(T.log_softmax(x, 1), t),
        T.nll_loss(T.log_softmax(z, 1), u, reduction="none"), T.nll_loss(T.log_softmax(x, 1), t, w, ignore_index=0)),
     (f(4, 5), i(5, 4), p(5), f(2, 5, 3, 4), i(5, 2, 3, 4), f(4, 5)),
     (f(7, 5), i(5, 7), p(5), f(3, 5, 2, 3), i(5, 3, 2, 3), f(7, 5))),
    ("bce/bce_with_logits/kl_div", lambda T, x, y, w: (
        T.binary_cross_entropy(T.sigmoid(x), T.sigmoid(y)), T.binary_cross_entropy(T.sigmoid(x), T.sigmoid(y), w, reduction="none"),
        T.binary_cross_entropy_with_logits(x * 30, T.sigmoid(y)), T.binary_cross_entropy_with_logits(x, T.sigmoid(y), w, pos_weight=w, reduction="sum"),
        T.kl_div(T.log_softmax(x, 1), T.softmax(y, 1), reduction="batchmean"), T.kl_div(x, y, reduction="none", log_target=True),
        T.kl_div(x, T.softmax(y, 1)), T.kl_div(x, T.relu(y), reduction="none")),
     (f(4, 3), f(4, 3), p(3)), (f(6, 5), f(6, 5), p(5))),
]


def _setitems(x, v):
    x[:, 1] = v
    x[0] = 7.0
    x[1:3, ::2] = -1.0
    return x
