"""Count the anchor cases: same / better / worse per table (``python -m tests.anchors.report``).

Every case is judged as the tests judge it (brute force included); a *wrong* answer raises.
"""

from __future__ import annotations

from collections import Counter

from . import test_jax_dim_expr as jax
from . import test_tvm_canonical_simplify as cs
from . import test_tvm_const_int_bound as cib
from . import test_tvm_modular_set as ms
from . import test_tvm_rewrite_simplify as rw
from ._compare import judge_bool, judge_bound, judge_form, judge_modular


def tallies() -> dict[str, Counter]:
    out = {}
    out["const_int_bound"] = Counter(judge_bound(e, r, t, c)[0] for _, e, r, t, c in cib.CASES)
    out["modular_set"] = Counter(judge_modular(e, t, c)[0] for _, e, t, c in ms.CASES)
    out["canonical_simplify"] = Counter(judge_form(b, t, r)[0] for _, b, t, r in cs.CASES) + \
        Counter(judge_bool(b, t, r)[0] for _, b, t, r in cs.LE_CASES)
    out["rewrite_simplify"] = Counter(judge_form(b, t, {}, p)[0] for _, b, t, p in rw.FORMS) + \
        Counter(judge_bool(b, t, {}, p)[0] for _, b, t, p in rw.RELATIONS)
    out["jax_dim_expr"] = Counter(jax.judge_bound_case(c)[0] for c in jax.BOUNDS + jax.SWEEP) + \
        Counter(jax.judge_form_case(c)[0] for c in jax.FORMS) + \
        Counter(jax.judge_decision_case(c)[0] for c in jax.DECISIONS) + \
        Counter(jax.judge_contradiction_case(c)[0] for c in jax.CONTRADICTIONS)
    return out


def jax_best() -> tuple[int, int]:
    """How many of the bounds JAX records as its aim (``best``, beyond its answer today) ours reaches, of how many."""
    aims = [(c, c[4]) for c in jax.BOUNDS if c[4] is not None]
    return sum(jax.judge_bound_case(c)[1] == best for c, best in aims), len(aims)


def main() -> None:
    total = Counter()
    for name, counts in tallies().items():
        total += counts
        print(f"{name:20s} same {counts['same']:4d}  better {counts['better']:4d}  worse {counts['worse']:4d}")
    print(f"{'all':20s} same {total['same']:4d}  better {total['better']:4d}  worse {total['worse']:4d}")
    reached, aims = jax_best()
    print(f"jax_dim_expr: ours reaches JAX's own aim ('best', beyond its answer today) in {reached} of {aims} bounds")


if __name__ == "__main__":
    main()
