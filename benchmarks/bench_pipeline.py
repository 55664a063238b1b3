"""Same-run comparison of installations: `lpt transform -q` process CPU and pipeline CPU.

Usage: python benchmarks/bench_pipeline.py [IR.xml ...] [--tree NAME=PYTHONPATH ...] [--repeat 3]

For each IR (default: the full-size ResNet-50 and BERT-base-like fixtures) and each tree
(an installation's PYTHONPATH, e.g. `pip install --no-deps --target /tmp/new .`; default:
this interpreter's own environment), fresh child processes, alternating the trees, measure:
  process   CPU of `python -m lpt_cli transform IR -o OUT -q` (the child's own rusage)
  first     CPU of the first `run_pipeline(graph, cpu)` in a process (lazy pass imports included)
  warm      CPU of the fastest later `run_pipeline` on a fresh read
The best of --repeat rounds counts. CPU time, not wall time: other load on a shared machine
inflates wall clocks far more than it does CPU time, and alternating the trees spreads what
remains evenly over them.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = r"""
import gc, json, sys, time
from lpt_cli.ir.reader import read_ir
try:
    from lpt_cli.lpt.engine.config import load_config
    from lpt_cli.lpt.engine.pipeline import run_pipeline
except ImportError:  # a tree from before lpt_cli/lpt/engine/
    from lpt_cli.lpt.config import load_config
    from lpt_cli.lpt.pipeline import run_pipeline
config, clock = load_config("cpu"), time.process_time
graph = read_ir(sys.argv[1])
gc.freeze()  # as `lpt transform` does after reading
started = clock()
run_pipeline(graph, config)
first, warm = clock() - started, float("inf")
for _ in range(3):
    graph = read_ir(sys.argv[1])
    started = clock()
    run_pipeline(graph, config)
    warm = min(warm, clock() - started)
print(json.dumps([first, warm]))
"""


def child_cpu(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    """(CPU seconds, stdout) of a fresh `python ARGS` run in `cwd`: `-c` and `-m` put the working
    directory first on sys.path, so a checkout there would shadow the tree being measured."""
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen([sys.executable, *args], env=env, stdout=out, cwd=cwd)
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status):
            raise SystemExit(f"python {' '.join(args)}: exit {os.waitstatus_to_exitcode(status)}")
        out.seek(0)
        return usage.ru_utime + usage.ru_stime, out.read().decode()


def measure(xml: Path, trees: dict[str, dict[str, str]], repeat: int, tmp: Path) -> dict[str, list[float]]:
    best = {name: [float("inf")] * 3 for name in trees}
    for _ in range(repeat):
        for name, env in trees.items():
            process, _ = child_cpu(["-m", "lpt_cli", "transform", str(xml), "-o", str(tmp / "out.xml"), "-q"], env, tmp)
            _, printed = child_cpu(["-c", PIPELINE, str(xml)], env, tmp)
            first, warm = json.loads(printed.strip().splitlines()[-1])
            best[name] = [min(a, b) for a, b in zip(best[name], (process, first, warm))]
    return best


def default_models() -> list[Path]:
    sys.path.insert(0, str(ROOT / "fixtures"))
    import generate

    return [Path(generate.ensure_model(name, "full")) for name in ("resnet", "transformer")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="IR .xml files (default: full ResNet-50 and BERT-base)")
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=PYTHONPATH",
                        help="an installation to measure (repeatable; default: this environment)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the fastest of each figure counts")
    args = parser.parse_args(argv)
    trees = {"this": dict(os.environ)}
    if args.tree:
        trees = {}
        for spec in args.tree:
            name, _, path = spec.partition("=")
            if not path:
                parser.error(f"--tree {spec}: expected NAME=PYTHONPATH")
            trees[name] = {**os.environ, "PYTHONPATH": path}
    one, five, fifteen = os.getloadavg()
    print(f"bench_pipeline: CPU seconds, best of {args.repeat}; load average {one:.2f} {five:.2f} {fifteen:.2f} "
          f"on {os.cpu_count()} cores")
    print(f"{'model':<24} {'tree':<12} {'process':>8} {'first':>8} {'warm':>8}")
    with tempfile.TemporaryDirectory(prefix="bench_pipeline_") as name:
        for xml in args.models or default_models():
            for tree, (process, first, warm) in measure(xml.resolve(), trees, args.repeat, Path(name)).items():
                print(f"{xml.name:<24} {tree:<12} {process:>8.3f} {first:>8.3f} {warm:>8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
