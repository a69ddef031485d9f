"""Time and memory of hostile input (issue 11): the resource bombs of tests/test_adversarial_resources.py.

Each bomb runs in a fresh interpreter under an address-space and CPU cap; the table
shows what happened, the CPU seconds and the peak resident memory. ``--root`` points
at another checkout (e.g. an older commit) to compare before and after.

    python3 benchmarks/bench_hostile.py [--root PATH] [--mem-mb 3072] [--cpu-s 60]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))

from test_adversarial_resources import BOMBS, run_bomb  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE, help="the checkout whose packages to run")
    parser.add_argument("--mem-mb", type=int, default=3072)
    parser.add_argument("--cpu-s", type=int, default=60)
    args = parser.parse_args()
    print(f"root {args.root}, caps {args.mem_mb} MB / {args.cpu_s} s CPU")
    print(f"{'bomb':58s} {'outcome':28s} {'cpu s':>7s} {'max MB':>7s}")
    for name, (body, _, _) in BOMBS.items():
        got = run_bomb(body, mem=args.mem_mb << 20, cpu=args.cpu_s, root=args.root, timeout=args.cpu_s * 3)
        what = got["outcome"] + (f": {got['type']}" if "type" in got else f" {got['value']}" if "value" in got else "")
        print(f"{name:58s} {what[:28]:28s} {got.get('cpu_s', float('nan')):7.2f} {got.get('max_rss_mb', float('nan')):7.0f}", flush=True)


if __name__ == "__main__":
    main()
