"""Pipeline cost per node from 40 to 50,000 nodes, in a wide and in a deep graph shape.

Usage: python benchmarks/bench_scaling.py [--quick] [--shape wide|deep] [--profile]

  wide  stacked residual blocks (FakeQuantize'd convolution branch + skip, Add, ReLU):
        many short paths, weighted layers everywhere
  deep  one long chain of FakeQuantize -> Add(constant) -> ReLU blocks: no weighted layer
        between a node and the model input, the shape that made constant-path checks
        walk back to the input each time
Each model is built with openvino's opset into a temporary folder, read once untimed, then
`run_pipeline(graph, cpu)` is timed on a fresh read, frozen for the garbage collector as
`lpt transform` does (CPU time of this process, so other load on the machine does not count;
best of --repeat). The table prints microseconds per
node for each size and the growth exponent between the two largest (1.0 = linear).
--quick stops at about 5,000 nodes. --profile prints the functions whose own time grew
faster than the node count between the two largest sizes.
"""
from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_transform import print_profile  # noqa: E402 - after the path set-up

CHANNELS, SPATIAL = 8, 4  # tiny tensors: the pipeline's cost, not numpy's
NODES_PER_BLOCK = {"wide": 32, "deep": 8}  # IR layers per block (incl. constants), measured
SIZES = (40, 400, 4_000, 50_000)
QUICK_SIZES = (40, 400, 5_000)


def build(shape: str, blocks: int, path: Path) -> Path:
    """`blocks` blocks of the `shape` graph, saved as IR at `path`."""
    import numpy as np
    import openvino as ov
    import openvino.opset13 as ops

    rng = np.random.default_rng(0)
    c = CHANNELS

    def fq(x: Any) -> Any:
        return ops.fake_quantize(x, -4.0, 4.0, -4.0, 4.0, 256)

    def bias() -> Any:
        return ops.constant(rng.uniform(-0.1, 0.1, (1, c, 1, 1)).astype(np.float32))

    def conv(x: Any) -> Any:
        w = ops.constant(rng.integers(-127, 128, (c, c, 3, 3), dtype=np.int8))
        scale = ops.constant(rng.uniform(1e-3, 1e-2, (c, 1, 1, 1)).astype(np.float32))
        y = ops.convolution(fq(x), ops.multiply(ops.convert(w, np.float32), scale), [1, 1], [1, 1], [1, 1], [1, 1])
        return ops.add(y, bias())

    x = ops.parameter([1, c, SPATIAL, SPATIAL], np.float32, name="input")
    y = x.output(0)
    for _ in range(blocks):
        if shape == "deep":
            y = ops.relu(ops.add(fq(y), bias())).output(0)
        else:
            y = ops.relu(ops.add(conv(ops.relu(conv(y))), fq(y))).output(0)
    ov.save_model(ov.Model([y], [x], f"{shape}{blocks}"), str(path), compress_to_fp16=False)
    return path


def pipeline_cpu(xml: Path, repeat: int) -> tuple[int, float]:
    """(nodes read, CPU seconds of the fastest of `repeat` pipeline runs, each on a fresh read)."""
    from lpt_cli.ir.reader import read_ir
    from lpt_cli.lpt.engine.config import load_config
    from lpt_cli.lpt.engine.pipeline import run_pipeline

    config, best, nodes = load_config("cpu"), math.inf, 0
    for _ in range(repeat):
        graph = read_ir(xml)
        nodes = len(graph)
        gc.freeze()  # as `lpt transform` does after reading: full collections skip the graph read
        started = time.process_time()
        run_pipeline(graph, config)
        best = min(best, time.process_time() - started)
        gc.unfreeze()  # (so the graphs of earlier rounds can go)
    return nodes, best


def curve(shape: str, sizes: tuple[int, ...], repeat: int, tmp: Path,
          report: Callable[[str], None]) -> list[tuple[int, float, Path]]:
    rows: list[tuple[int, float, Path]] = []
    report(f"\n== {shape}: pipeline CPU time per node ==  (load average {os.getloadavg()[0]:.2f}, "
           f"{os.cpu_count()} cores)")
    report(f"{'nodes':>8} {'blocks':>7} {'cpu':>9} {'us/node':>8}")
    for target in sizes:
        blocks = max(1, round(target / NODES_PER_BLOCK[shape]))
        xml = build(shape, blocks, tmp / f"{shape}{blocks}.xml")
        nodes, cpu = pipeline_cpu(xml, repeat if target < 10_000 else 1)
        rows.append((nodes, cpu, xml))
        report(f"{nodes:>8} {blocks:>7} {cpu:>8.2f}s {cpu / nodes * 1e6:>8.1f}")
    (n1, t1, _), (n2, t2, _) = rows[-2], rows[-1]
    exponent = math.log(t2 / t1) / math.log(n2 / n1)
    report(f"growth exponent {exponent:.2f} from {n1} to {n2} nodes (1.0 = linear): "
           f"{'OK' if exponent <= 1.15 else 'MISSED'} (linear if <= 1.15)")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK_SIZES} instead of {SIZES}")
    parser.add_argument("--shape", choices=sorted(NODES_PER_BLOCK), help="only this graph shape")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size below 10,000 nodes; the fastest counts")
    parser.add_argument("--profile", action="store_true", help="cProfile the two largest sizes of each shape")
    args = parser.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else SIZES
    with tempfile.TemporaryDirectory(prefix="bench_scaling_") as name:
        tmp = Path(name)
        pipeline_cpu(build("deep", 2, tmp / "warm.xml"), 1)  # imports and caches, untimed
        for shape in [args.shape] if args.shape else sorted(NODES_PER_BLOCK):
            rows = curve(shape, sizes, args.repeat, tmp, lambda line: print(line, flush=True))
            if args.profile:
                print_profile(rows[-2][2], rows[-1][2])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
