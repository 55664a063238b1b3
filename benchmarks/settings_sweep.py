"""Settings sweep: NNCF settings variants (fixtures/settings.py) against the CPU plugin's own LPT.

    python benchmarks/settings_sweep.py --seed S --count N [--reduce]   # N variants drawn from seed S
    python benchmarks/settings_sweep.py --fixed [--reduce]              # the sample CI checks
    python benchmarks/settings_sweep.py --only NAME ... [--reduce]      # named variants
    options: [--dir DIR] [--json FILE] [--list]

Each variant is built on first use (cached by name in DIR, default fixtures/cache/settings or
$LPT_SETTINGS_DIR) and checked exactly as a zoo model (benchmarks/zoo_parity.py: compiles,
kernels, names, outputs, lowp, report, size); one row per variant, then a summary. With
--reduce, each variant whose outputs differ is cut at its first diverging op by
repros/find_divergence.py's bisection, printed as `NAME: first diverging TYPE OP (error)`.
Exit 3 when some variant fails a check.
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import zoo_parity  # noqa: E402
from fixtures import settings  # noqa: E402
from repros import find_divergence  # noqa: E402


def run(variants: list[settings.Variant], folder: Path, cap: str | None = None) -> list[zoo_parity.Row]:
    """Builds and checks each variant (under the ISA `cap`, None: this CPU as it is), printing its row
    (with build + check seconds) as it comes."""
    rows = []
    width = max(len(variant.name) for variant in variants)
    with tempfile.TemporaryDirectory(prefix="lpt-settings-") as tmp:
        for variant in variants:
            start = time.perf_counter()
            build = functools.partial(settings.build, variant, folder)
            rows.append(zoo_parity.build_and_check(variant.name, build, folder, Path(tmp), cap))
            print(f"{zoo_parity.format_row(rows[-1], width)} | {time.perf_counter() - start:.0f} s", flush=True)
    return rows


def reduce(rows: list[zoo_parity.Row], folder: Path) -> None:
    """Prints the first diverging op of every variant whose runtime model computes other outputs or does not
    compile (a cut the plugin refuses or crashes on counts as diverging)."""
    for row in rows:
        lpt_fails = row.details.get("compiles", "").startswith(("refused", "crash"))
        if row.results.get("outputs") or not (row.results.get("compiles") or lpt_fails):
            continue
        print(f"{row.model}: reducing ({row.details.get('compiles' if lpt_fails else 'outputs')})", flush=True)
        found = find_divergence.reduce(folder / f"{row.model}.xml", tol=zoo_parity.TOLERANCE,
                                       log=lambda line: print(f"  {line}", flush=True))
        if not found:
            print(f"{row.model}: no candidate downstream of a FakeQuantize")
            continue
        op, error = found[0]
        verdict = "" if error > zoo_parity.TOLERANCE else ", within tolerance: no single-output cut diverges"
        print(f"{row.model}: first diverging {op.get_type_name()} {op.get_friendly_name()} ({error:.1e}{verdict})",
              flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--fixed", action="store_true", help="the sample tests/zoo/test_settings_sample.py checks")
    chosen.add_argument("--only", nargs="+", metavar="NAME", default=[], help="these variants (names as printed)")
    parser.add_argument("--seed", type=int, default=0, help="draws the variants (default 0)")
    parser.add_argument("--count", type=int, default=12, help="how many variants to draw (default 12)")
    parser.add_argument("--reduce", action="store_true", help="find the first diverging op of each diverging variant")
    parser.add_argument("--dir", type=Path, default=settings.DEFAULT_DIR, help="where variants are built and cached")
    parser.add_argument("--json", type=Path, help="also write the rows (with failure details) as JSON")
    parser.add_argument("--list", action="store_true", help="print the variants' names and settings, build nothing")
    args = parser.parse_args(argv)
    try:
        variants = ([settings.Variant.parse(name) for name in args.only] if args.only
                    else list(settings.FIXED_SAMPLE) if args.fixed else settings.sample(args.seed, args.count))
    except ValueError as exc:
        parser.error(str(exc))
    if args.list:
        for variant in variants:
            print(f"{variant.name}  {variant.describe()}")
        return 0
    start = time.perf_counter()
    rows = run(variants, args.dir)
    zoo_parity.print_summary(rows)
    print(f"{time.perf_counter() - start:.0f} s in all")
    if args.json:
        args.json.write_text(json.dumps([row.__dict__ for row in rows], indent=1))
    if args.reduce:
        reduce(rows, args.dir)
    return 3 if any(not all(row.results.get(check) for check in zoo_parity.CHECKS) for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
