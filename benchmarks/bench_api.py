"""What the Python API's in-memory path costs over the file path, and what `import lpt_cli` costs.

Usage: python benchmarks/bench_api.py [--model MODEL.xml] [--repeat 3]

An `openvino.Model` crosses into lpt as an IR openvino serializes to a temporary folder and
comes back as one openvino reads; this prints, per call, the file-path time beside the
in-memory time (medians of --repeat runs), and the time of a bare `import lpt_cli` in a fresh
interpreter (which must not load openvino). Default model: fixtures/models/resnet.xml.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _median_seconds(call: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _import_seconds() -> tuple[float, bool]:
    code = ("import sys, time; t = time.perf_counter(); import lpt_cli; "
            "print(time.perf_counter() - t, 'openvino' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout.split()
    return float(out[0]), out[1] == "True"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=ROOT / "fixtures" / "models" / "resnet.xml")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import openvino as ov

    import lpt_cli

    seconds, loaded = _import_seconds()
    print(f"bench_api: {args.model} ({args.model.with_suffix('.bin').stat().st_size / 1e6:.1f} MB .bin), "
          f"median of {args.repeat}; load average {os.getloadavg()[0]:.1f}")
    print(f"import lpt_cli: {seconds * 1e3:.1f} ms (openvino loaded: {'yes' if loaded else 'no'})")
    model = ov.Core().read_model(str(args.model))
    with tempfile.TemporaryDirectory(prefix="lpt-bench-api-") as tmp:
        out = Path(tmp) / "out.xml"
        rows = [
            ("transform", lambda: lpt_cli.transform_file(args.model, out), lambda: lpt_cli.transform(model)),
            ("report", lambda: lpt_cli.report(args.model), lambda: lpt_cli.report(model)),
        ]
        lpt_cli.report(args.model)  # warm caches (profiles, imports) before timing
        print(f"{'call':<10} {'IR path (s)':>12} {'openvino.Model (s)':>19} {'overhead':>9}")
        for name, by_path, in_memory in rows:
            path_s = _median_seconds(by_path, args.repeat)
            memory_s = _median_seconds(in_memory, args.repeat)
            print(f"{name:<10} {path_s:>12.3f} {memory_s:>19.3f} {memory_s / path_s:>8.2f}x")


if __name__ == "__main__":
    main()
