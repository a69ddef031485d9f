"""Verdicts read from torch's own guard dumps vs torch's reuse decisions, on random inputs (needs torch 2.13).

For each of the six models of tests/guards/torch_models.py: compile and call it (capturing its
TORCH_LOGS=guards output), then for N random inputs (a third non-contiguous) ask torch under
``set_stance("fail_on_recompile")`` whether it reuses an entry, and ask the dump alone
(guards.torchlog.torch_check.explain_call). Also counted: the verdicts from the LAMBDA_GUARD lines only
(what a reader that skips TENSOR_MATCH would say).

    python3 benchmarks/torch_dump_agreement.py            # 300 inputs per model
    python3 benchmarks/torch_dump_agreement.py --samples 50
"""

from __future__ import annotations

import argparse
import inspect
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from guards.guardset import GuardSet  # noqa: E402
from guards.torchlog.torch_check import TorchGuards, explain_call, load_torch_guards  # noqa: E402
from guards.torchlog.torch_log import read_torch_log  # noqa: E402
from tests.guards.torch_models import MODELS, capture, random_inputs  # noqa: E402


def reuses(compiled, args) -> bool:
    try:
        with torch.compiler.set_stance("fail_on_recompile"):
            compiled(*args)
    except RuntimeError as exc:
        if "Detected recompile" in str(exc):
            return False
        raise
    return True


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=300)
    args = parser.parse_args(argv)
    totals = dict(inputs=0, agree=0, lambda_agree=0, reused=0, noncontiguous=0, lines=0)
    for name in sorted(MODELS):
        text, compiled = capture(name)
        log = read_torch_log(text)
        entries = load_torch_guards(text)
        lambda_only = [TorchGuards(replace(e.entry, tensors=()), GuardSet.of(
            [g for g in e.guards.guards if "LAMBDA_GUARD" in (g.origin or "")], e.guards.source_map)) for e in entries]
        model = compiled._orig_mod
        params = list(inspect.signature(model.forward).parameters)
        row = dict(inputs=0, agree=0, lambda_agree=0, reused=0, noncontiguous=0, lines=log.lines)
        for call in random_inputs(name, args.samples, seed=11):
            arguments = {"self": model, **dict(zip(params, call))}
            theirs = reuses(compiled, call)
            row["inputs"] += 1
            row["reused"] += theirs
            row["agree"] += (explain_call(entries, arguments).reused is not None) == theirs
            row["lambda_agree"] += (explain_call(lambda_only, arguments).reused is not None) == theirs
            leaves = [a for arg in call for a in (arg if isinstance(arg, (list, tuple)) else arg.values() if isinstance(arg, dict) else [arg])]
            row["noncontiguous"] += any(isinstance(a, torch.Tensor) and not a.is_contiguous() for a in leaves)
        skipped = log.skipped_counts()
        print(f"{name:12s} {row['lines']:4d} lines, {len(log.entries)} entries, {sum(skipped.values()):4d} guard lines skipped; "
              f"inputs {row['inputs']} ({row['noncontiguous']} non-contiguous, torch reused {row['reused']}): "
              f"agree {row['agree']}/{row['inputs']}, LAMBDA_GUARD lines only {row['lambda_agree']}/{row['inputs']}")
        for k in totals:
            totals[k] += row[k]
    print(f"total: {totals['lines']} lines; {totals['agree']}/{totals['inputs']} verdicts agree with torch "
          f"({totals['noncontiguous']} non-contiguous inputs, torch reused {totals['reused']}); "
          f"LAMBDA_GUARD lines only: {totals['lambda_agree']}/{totals['inputs']}")
    return 0 if totals["agree"] == totals["inputs"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
