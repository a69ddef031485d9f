"""Case rows for the ops real models use (activations, dropout, masks, clamps, norms, ...).

Plain rows ``(id, shapes, fn, *dtypes)``, with ``fn(L, *inputs)`` written once against a torch-like
namespace: ``tests/shapeenv/test_rules_cases.py`` turns them into its ``Case`` table (so every
table-wide test runs them: symbolic vs static at the hints, guard soundness on other sizes) and
``tests/shapeenv/test_rules_torch.py`` runs them against torch (shapes, strides, dtypes, aliasing,
errors where torch errors). :data:`TORCH_NAMES` says where torch keeps each function.

>>> len(ROWS) > 50, all(len(r) >= 3 for r in ROWS)
(True, True)
"""

from __future__ import annotations

__all__ = ["ROWS", "DATA_DEPENDENT_ROWS", "TORCH_NAMES"]

F32, F16, F64, I64, I32, B = "float32", "float16", "float64", "int64", "int32", "bool"


def _cl(L, x):
    return x.contiguous(memory_format=L.channels_last)


#: where torch keeps each name used by the rows: ``F`` (torch.nn.functional) or ``torch``
TORCH_NAMES = {
    **{n: "F" for n in ("gelu silu softplus hardswish hardsigmoid leaky_relu elu selu celu mish relu6 hardtanh "
                        "relu logsigmoid softsign dropout layer_norm rms_norm group_norm batch_norm instance_norm").split()},
    **{n: "torch" for n in "masked_fill tril triu clamp clip clamp_min clamp_max float16 float64 int32".split()},
}

ACTIVATIONS = "gelu silu softplus hardswish hardsigmoid leaky_relu elu selu celu mish relu6 hardtanh logsigmoid softsign"

ROWS: list[tuple] = [
    # -- activations: layouts (transposed, channels-last, sliced), dtypes, in place ------------------
    *[(f"{n}-t", [(4, 3)], (lambda n: lambda L, x: getattr(L, n)(x.t()))(n)) for n in ACTIVATIONS.split()],
    *[(f"{n}-cl", [(2, 3, 4, 5)], (lambda n: lambda L, x: getattr(L, n)(_cl(L, x)))(n)) for n in ACTIVATIONS.split()],
    *[(f"{n}-int", [(2, 3)], (lambda n: lambda L, x: getattr(L, n)(x))(n), I64) for n in ACTIVATIONS.split()],
    *[(f"{n}-bool", [(2, 3)], (lambda n: lambda L, x: getattr(L, n)(x))(n), B) for n in ("relu6", "softsign", "gelu")],
    ("gelu-tanh-sliced", [(4, 6)], lambda L, x: L.gelu(x[:, ::2], approximate="tanh")),
    ("gelu-bad-approximate", [(4,)], lambda L, x: L.gelu(x, approximate="fast")),
    ("gelu-half", [(2, 3)], lambda L, x: L.gelu(x), F16),
    ("silu-inplace", [(2, 3)], lambda L, x: L.silu(x, inplace=True)),
    ("silu-inplace-view", [(4, 3)], lambda L, x: L.silu(x.t(), inplace=True)),
    ("leaky-relu-args", [(2, 3)], lambda L, x: L.leaky_relu(x, 0.2, True)),
    ("elu-inplace", [(2, 3)], lambda L, x: L.elu(x, 0.5, inplace=True)),
    ("hardtanh-args", [(2, 3)], lambda L, x: L.hardtanh(x, -2.0, 2.0)),
    ("hardtanh-int-inplace", [(2, 3)], lambda L, x: L.hardtanh(x, -2, 2, True), I64),
    ("relu6-inplace", [(2, 3)], lambda L, x: L.relu6(x, inplace=True)),
    ("softplus-args", [(2, 3)], lambda L, x: L.softplus(x, 2, 10)),
    ("relu-inplace", [(2, 3)], lambda L, x: L.relu(x.t(), inplace=True)),
    # -- dropout --------------------------------------------------------------------------------------
    ("dropout-train", [(4, 3)], lambda L, x: L.dropout(x.t())),
    ("dropout-train-cl", [(2, 3, 4, 5)], lambda L, x: L.dropout(_cl(L, x), 0.2)),
    ("dropout-train-sliced", [(4, 6)], lambda L, x: L.dropout(x[:, ::2], 0.3)),
    ("dropout-eval", [(4, 3)], lambda L, x: L.dropout(x.t(), 0.5, False)),
    ("dropout-p0", [(4, 3)], lambda L, x: L.dropout(x, 0.0)),
    ("dropout-p1", [(4, 3)], lambda L, x: L.dropout(x.t(), 1.0)),
    ("dropout-p1-int", [(4, 3)], lambda L, x: L.dropout(x, 1.0), I64),
    ("dropout-int", [(4, 3)], lambda L, x: L.dropout(x, 0.5), I64),
    ("dropout-int-eval", [(4, 3)], lambda L, x: L.dropout(x, 0.5, training=False), I64),
    ("dropout-bad-p", [(4, 3)], lambda L, x: L.dropout(x, 1.5)),
    ("dropout-empty", [(0, 3)], lambda L, x: L.dropout(x, 0.5)),
    ("dropout-inplace", [(4, 3)], lambda L, x: L.dropout(x, 0.5, True, True)),
    # -- masked_fill --------------------------------------------------------------------------------
    ("masked-fill", [(3, 4), (3, 4)], lambda L, x, m: L.masked_fill(x, m, 0.0), F32, B),
    ("masked-fill-t", [(4, 3), (3, 4)], lambda L, x, m: x.t().masked_fill(m, float("-inf")), F32, B),
    ("masked-fill-bcast-mask", [(2, 3, 4), (4,)], lambda L, x, m: x.masked_fill(m, 1.0), F32, B),
    ("masked-fill-grows", [(4,), (3, 4)], lambda L, x, m: x.masked_fill(m, 1.0), F32, B),
    ("masked-fill-cl", [(2, 3, 4, 5), (5,)], lambda L, x, m: _cl(L, x).masked_fill(m, 0.0), F32, B),
    ("masked-fill-causal", [(2, 5, 5)], lambda L, x: x.masked_fill(L.triu(L.ones(5, 5, dtype=L.bool), 1), 0.0)),
    ("masked-fill-mismatch", [(3, 4), (3,)], lambda L, x, m: x.masked_fill(m, 0.0), F32, B),
    ("masked-fill-float-mask", [(3, 4), (3, 4)], lambda L, x, m: x.masked_fill(m, 0.0)),
    ("masked-fill-tensor-value", [(3, 4), (3, 4), ()], lambda L, x, m, v: x.masked_fill(m, v), F32, B, F64),
    ("masked-fill-1d-value", [(3, 4), (3, 4), (1,)], lambda L, x, m, v: x.masked_fill(m, v), F32, B),
    ("masked-fill-int-float", [(3, 4), (3, 4)], lambda L, x, m: x.masked_fill(m, 0.5), I64, B),
    ("masked-fill-int-inf", [(3, 4), (3, 4)], lambda L, x, m: x.masked_fill(m, float("-inf")), I64, B),
    ("masked-fill-bool", [(3, 4), (3, 4)], lambda L, x, m: x.masked_fill(m, 3), B, B),
    ("masked-fill-fn", [(3, 4), (4,)], lambda L, x, m: L.masked_fill(x.t()[:, :3], m[:3], 2), F32, B),
    ("masked-fill_", [(3, 4), (4,)], lambda L, x, m: x.masked_fill_(m, 0.0), F32, B),
    ("masked-fill_-t", [(3, 4), (3,)], lambda L, x, m: x.t().masked_fill_(m, 0.0), F32, B),
    ("masked-fill_-grows", [(4,), (3, 4)], lambda L, x, m: x.masked_fill_(m, 0.0), F32, B),
    # -- tril / triu ----------------------------------------------------------------------------------
    ("tril", [(3, 4)], lambda L, x: L.tril(x)),
    ("tril-t-diag", [(3, 4)], lambda L, x: L.tril(x.t(), -1)),
    ("triu-3d-perm", [(2, 3, 4)], lambda L, x: L.triu(x.permute(1, 0, 2), 1)),
    ("triu-cl", [(2, 3, 4, 5)], lambda L, x: _cl(L, x).triu()),
    ("tril-bool", [(3, 3)], lambda L, x: x.tril(), B),
    ("tril-big-diag", [(3, 4)], lambda L, x: x.tril(100)),
    ("tril-symbolic-diag", [(3, 4)], lambda L, x: x.triu(x.shape[0] - 4)),
    ("tril-1d", [(3,)], lambda L, x: L.tril(x)),
    ("tril_-triu_", [(3, 4)], lambda L, x: x.tril_(1).triu_(-1)),
    # -- clamp / clip -------------------------------------------------------------------------------
    ("clamp-min", [(4, 3)], lambda L, x: L.clamp(x.t(), 0)),
    ("clamp-max-cl", [(2, 3, 4, 5)], lambda L, x: L.clamp(_cl(L, x), max=0.5)),
    ("clamp-both", [(2, 3)], lambda L, x: x.clamp(-1, 1)),
    ("clamp-none", [(2, 3)], lambda L, x: L.clamp(x)),
    ("clamp-int-float", [(2, 3)], lambda L, x: x.clamp(0.5), I64),
    ("clamp-int-int", [(2, 3)], lambda L, x: x.clamp(0, 2), I64),
    ("clamp-bool-int", [(2, 3)], lambda L, x: x.clamp(0, 2), B),
    ("clamp-bool-bool", [(2, 3)], lambda L, x: x.clamp(False, True), B),
    ("clamp-half", [(2, 3)], lambda L, x: x.clamp(0.5), F16),
    ("clamp-tensor", [(4, 3), (4, 1)], lambda L, x, lo: L.clamp(x.t(), lo.t())),
    ("clamp-tensor-grows", [(4,), (3, 1)], lambda L, x, lo: L.clamp(x, lo)),
    ("clamp-tensors", [(3, 4), (4,), (3, 1)], lambda L, x, lo, hi: x.clamp(lo, hi)),
    ("clamp-tensor-int", [(2, 3), (2, 3)], lambda L, x, lo: L.clamp(x, lo), I64, F32),
    ("clamp-tensor-0d", [(2, 3), ()], lambda L, x, lo: L.clamp(x, lo), I64, F32),
    ("clamp-tensor-0d-double", [(2, 3), ()], lambda L, x, lo: L.clamp(x, lo), F32, F64),
    ("clamp-tensor-mismatch", [(2, 3), (4,)], lambda L, x, lo: L.clamp(x, lo)),
    ("clip", [(2, 3)], lambda L, x: L.clip(x, -1, 1)),
    ("clip-method", [(2, 3)], lambda L, x: x.clip(max=0)),
    ("clamp-min-max-fns", [(2, 3)], lambda L, x: (L.clamp_min(x, 0), L.clamp_max(x.t(), 1), x.clamp_min(1), x.clamp_max(2))),
    ("clamp_", [(2, 3), (3,)], lambda L, x, lo: x.clamp_(lo)),
    ("clamp_-int-float", [(2, 3)], lambda L, x: x.clamp_(0.5), I64),
    ("clamp_-grows", [(3,), (2, 3)], lambda L, x, lo: x.clamp_(lo)),
    ("clip_", [(2, 3)], lambda L, x: x.clip_(0, 1)),
    # -- layer_norm / rms_norm ------------------------------------------------------------------------
    ("layer-norm", [(2, 3, 8)], lambda L, x: L.layer_norm(x, (8,))),
    ("layer-norm-sym", [(2, 3, 8), (8,), (8,)], lambda L, x, w, b: L.layer_norm(x, (x.shape[-1],), w, b)),
    ("layer-norm-2d-shape", [(2, 3, 4, 5), (4, 5)], lambda L, x, w: L.layer_norm(_cl(L, x), (4, 5), w)),
    ("layer-norm-t", [(4, 3)], lambda L, x: L.layer_norm(x.t(), (4,))),
    ("layer-norm-bad", [(2, 3, 8)], lambda L, x: L.layer_norm(x, (3,))),
    ("layer-norm-weight-bad", [(2, 3, 8), (3,)], lambda L, x, w: L.layer_norm(x, (8,), w)),
    ("layer-norm-int", [(2, 3)], lambda L, x: L.layer_norm(x, (3,)), I64),
    ("layer-norm-empty-shape", [(2, 3)], lambda L, x: L.layer_norm(x, ())),
    ("layer-norm-too-long", [(3,)], lambda L, x: L.layer_norm(x, (2, 3))),
    ("layer-norm-half", [(2, 8), (8,)], lambda L, x, w: L.layer_norm(x, (8,), w, w), F16, F32),
    ("layer-norm-mixed-bad", [(2, 8), (8,)], lambda L, x, w: L.layer_norm(x, (8,), w), F32, F16),
    ("rms-norm", [(2, 3, 8)], lambda L, x: L.rms_norm(x, (8,))),
    ("rms-norm-cl", [(2, 3, 4, 5)], lambda L, x: L.rms_norm(_cl(L, x), (5,))),
    ("rms-norm-cl-weight", [(2, 3, 4, 5), (5,)], lambda L, x, w: L.rms_norm(_cl(L, x), (5,), w, 1e-6)),
    ("rms-norm-t", [(4, 3)], lambda L, x: L.rms_norm(x.t(), (4,))),
    ("rms-norm-bad", [(2, 3, 8)], lambda L, x: L.rms_norm(x, (4,))),
    ("rms-norm-int", [(2, 3)], lambda L, x: L.rms_norm(x, (3,)), I64),
    ("rms-norm-weight-half", [(2, 8), (8,)], lambda L, x, w: L.rms_norm(x, (8,), w), F32, F16),
    # -- group_norm -------------------------------------------------------------------------------------
    ("group-norm", [(2, 6, 4, 5)], lambda L, x: L.group_norm(x, 3)),
    ("group-norm-cl", [(2, 6, 4, 5), (6,), (6,)], lambda L, x, w, b: L.group_norm(_cl(L, x), 2, w, b)),
    ("group-norm-3d-perm", [(2, 5, 6)], lambda L, x: L.group_norm(x.transpose(1, 2), 3)),
    ("group-norm-2d", [(4, 6)], lambda L, x: L.group_norm(x.t(), 2)),
    ("group-norm-indivisible", [(2, 6, 4)], lambda L, x: L.group_norm(x, 4)),
    ("group-norm-weight-bad", [(2, 6, 4), (4,)], lambda L, x, w: L.group_norm(x, 3, w)),
    ("group-norm-1d", [(6,)], lambda L, x: L.group_norm(x, 3)),
    ("group-norm-one-value", [(1, 3, 1)], lambda L, x: L.group_norm(x, 3)),
    ("group-norm-int", [(2, 6)], lambda L, x: L.group_norm(x, 3), I64),
    # -- batch_norm -------------------------------------------------------------------------------------
    ("batch-norm-eval", [(2, 3, 4, 5), (3,), (3,)], lambda L, x, m, v: L.batch_norm(x, m, v)),
    ("batch-norm-eval-cl", [(2, 3, 4, 5), (3,), (3,), (3,)], lambda L, x, m, v, w: L.batch_norm(_cl(L, x), m, v, w, w)),
    ("batch-norm-train", [(2, 3, 4, 5), (3,), (3,)], lambda L, x, m, v: L.batch_norm(x, m, v, training=True)),
    ("batch-norm-train-cl-nostats", [(2, 3, 4, 5)], lambda L, x: L.batch_norm(_cl(L, x), None, None, training=True)),
    ("batch-norm-eval-nostats", [(2, 3, 4, 5)], lambda L, x: L.batch_norm(x, None, None)),
    ("batch-norm-2d", [(4, 3), (4,), (4,)], lambda L, x, m, v: L.batch_norm(x.t(), m, v)),
    ("batch-norm-3d-perm", [(2, 5, 3), (3,), (3,)], lambda L, x, m, v: L.batch_norm(x.transpose(1, 2), m, v, None, None, True)),
    ("batch-norm-sliced", [(2, 3, 4, 5), (3,), (3,)], lambda L, x, m, v: L.batch_norm(x[:, :, ::2], m, v)),
    ("batch-norm-train-one", [(1, 4), (4,), (4,)], lambda L, x, m, v: L.batch_norm(x, m, v, training=True)),
    ("batch-norm-train-one-3d", [(1, 4, 1), (4,), (4,)], lambda L, x, m, v: L.batch_norm(x, m, v, training=True)),
    ("batch-norm-eval-one", [(1, 4), (4,), (4,)], lambda L, x, m, v: L.batch_norm(x, m, v)),
    ("batch-norm-stats-bad", [(2, 3, 4), (4,), (4,)], lambda L, x, m, v: L.batch_norm(x, m, v)),
    ("batch-norm-1d", [(4,), (4,), (4,)], lambda L, x, m, v: L.batch_norm(x, m, v)),
    ("batch-norm-int", [(2, 3), (3,), (3,)], lambda L, x, m, v: L.batch_norm(x, m, v), I64, F32, F32),
    ("batch-norm-half", [(2, 3, 4), (3,), (3,)], lambda L, x, m, v: L.batch_norm(x, m, v, m, v, True), F16, F32, F32),
    # -- instance_norm ----------------------------------------------------------------------------------
    ("instance-norm", [(2, 3, 4, 5)], lambda L, x: L.instance_norm(x)),
    ("instance-norm-cl", [(2, 3, 4, 5), (3,), (3,)], lambda L, x, w, b: L.instance_norm(_cl(L, x), weight=w, bias=b)),
    ("instance-norm-stats", [(2, 3, 4), (3,), (3,)], lambda L, x, m, v: L.instance_norm(x, m, v)),
    ("instance-norm-eval", [(2, 3, 4), (3,), (3,)], lambda L, x, m, v: L.instance_norm(x, m, v, use_input_stats=False)),
    ("instance-norm-eval-nostats", [(2, 3, 4)], lambda L, x: L.instance_norm(x, use_input_stats=False)),
    ("instance-norm-2d", [(3, 4)], lambda L, x: L.instance_norm(x)),
    ("instance-norm-one-spatial", [(2, 3, 1)], lambda L, x: L.instance_norm(x)),
    ("instance-norm-perm", [(2, 5, 3)], lambda L, x: L.instance_norm(x.transpose(1, 2))),
    ("instance-norm-weight-bad", [(2, 3, 4), (4,)], lambda L, x, w: L.instance_norm(x, weight=w)),
]

#: rows whose output sizes are data-dependent (unbacked): compared by the values torch gives
DATA_DEPENDENT_ROWS: list[tuple] = []
