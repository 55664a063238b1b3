"""IR read+write speed and peak memory: lpt's reader/writer against OpenVINO's, same file.

Usage: python benchmarks/bench_io.py [--model MODEL.xml] [--repeat 3]
       python benchmarks/bench_io.py --split [MODEL.xml ...]

Without --model it builds (once) a ResNet-50-shaped quantized IR in fixtures/cache/:
53 convolutions with i8 weights (Constant -> Convert -> Multiply) and a FakeQuantize on
every convolution input (~25 MB .bin). Each side runs in a fresh subprocess so its peak
RSS (ru_maxrss) is its own. Targets: time <= 3x OpenVINO's, peak RSS <= .bin + 150 MB.

--split times, in this process, the parts of `lpt transform` that are I/O: read_ir, the
runtime dialect's legalize_for_runtime, writing the legalized graph, and write_ir as a whole
(both), against a plain copy of the .bin (default models: the full ResNet-50 and BERT-base
fixtures). CPU time, best of --repeat (default 7 here): other load on the machine inflates
wall time more. Outputs are removed between runs, as `lpt transform` writes new files.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "fixtures" / "cache"
STAGES = [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]  # width, blocks, first stride


def build_resnet50(path: Path) -> Path:
    """A bottleneck ResNet-50 graph with quantized activations and i8 weights."""
    import numpy as np
    import openvino as ov
    import openvino.opset13 as ops

    rng = np.random.default_rng(0)

    def conv(x, cin: int, cout: int, k: int, stride: int):
        fq = ops.fake_quantize(x, 0.0, 4.0, 0.0, 4.0, 256)
        w = ops.constant(rng.integers(-127, 128, (cout, cin, k, k), dtype=np.int8))
        scale = ops.constant(rng.uniform(1e-3, 1e-2, (cout, 1, 1, 1)).astype(np.float32))
        weights = ops.multiply(ops.convert(w, np.float32), scale)
        pad = k // 2
        return ops.convolution(fq, weights, [stride, stride], [pad, pad], [pad, pad], [1, 1])

    x = ops.parameter([1, 3, 224, 224], np.float32, name="image")
    y = ops.relu(conv(x, 3, 64, 7, 2))
    y = ops.max_pool(y, [2, 2], [1, 1], [0, 0], [0, 0], [3, 3], "floor", "explicit").output(0)
    cin = 64
    for width, blocks, stride in STAGES:
        for b in range(blocks):
            s = stride if b == 0 else 1
            branch = ops.relu(conv(y, cin, width, 1, 1))
            branch = ops.relu(conv(branch, width, width, 3, s))
            branch = conv(branch, width, width * 4, 1, 1)
            skip = conv(y, cin, width * 4, 1, s) if b == 0 else y
            y = ops.relu(ops.add(branch, skip))
            cin = width * 4
    pooled = ops.reduce_mean(y, ops.constant(np.array([2, 3], np.int64)), True)
    logits = conv(pooled, cin, 1000, 1, 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    ov.save_model(ov.Model([logits], [x], "resnet50_int8"), str(path), compress_to_fp16=False)
    return path


def _child(side: str, model: str, out: str) -> None:
    """Runs one read+write in this (fresh) process and prints seconds and peak RSS."""
    started = time.perf_counter()
    if side == "lpt":
        from lpt_cli.ir.reader import read_ir
        from lpt_cli.ir.writer import write_ir

        write_ir(read_ir(model), out, dialect="lowp")
    else:
        import openvino as ov

        ov.save_model(ov.Core().read_model(model), out, compress_to_fp16=False)
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb}))


def _measure(side: str, model: Path, repeat: int) -> dict[str, float]:
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench_io_") as tmp:
        for _ in range(repeat):
            done = subprocess.run([sys.executable, __file__, "--child", side, str(model), f"{tmp}/out.xml"],
                                  capture_output=True, text=True, check=True)
            run = json.loads(done.stdout.strip().splitlines()[-1])
            best = run if not best or run["seconds"] < best["seconds"] else best
    return best


def _cpu_best(repeat: int, run: Callable[[], object], before: Callable[[], object] = lambda: None) -> float:
    """Fewest CPU seconds (user + system, this process) of `run`, `before` untimed each time."""
    best = float("inf")
    for _ in range(repeat):
        before()
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best


def split(models: list[Path], repeat: int) -> None:
    """read / legalize / write / write_ir / copy of the .bin, per model (see the module doc)."""
    print(f"in-process CPU seconds, best of {repeat} (load average {os.getloadavg()[0]:.2f})")
    with tempfile.TemporaryDirectory(prefix="bench_io_") as name:
        for model in models:
            _split_one(model, Path(name) / "out.xml", repeat)


def _split_one(model: Path, out: Path, repeat: int) -> None:
    from lpt_cli.ir.legalize import legalize_for_runtime
    from lpt_cli.ir.reader import read_ir
    from lpt_cli.ir.writer import write_ir
    from lpt_cli.lpt.engine.config import load_config
    from lpt_cli.lpt.engine.pipeline import run_pipeline

    def clean() -> None:
        for path in (out, out.with_suffix(".bin")):
            path.unlink(missing_ok=True)

    read = _cpu_best(repeat, lambda: read_ir(model))
    graph = read_ir(model)
    run_pipeline(graph, load_config("cpu"))
    legalize = _cpu_best(repeat, lambda: legalize_for_runtime(graph))
    legal = legalize_for_runtime(graph)
    write = _cpu_best(repeat, lambda: write_ir(legal, out, dialect="lowp"), clean)
    whole = _cpu_best(repeat, lambda: write_ir(graph, out), clean)
    copy = _cpu_best(repeat, lambda: shutil.copyfile(model.with_suffix(".bin"), out.with_suffix(".bin")), clean)
    clean()
    bin_mb = model.with_suffix(".bin").stat().st_size / 2**20
    print(f"{model.name} (.bin {bin_mb:.1f} MB): read_ir {read:.3f} s, legalize {legalize:.3f} s, "
          f"writing {write:.3f} s, write_ir {whole:.3f} s = {whole / copy:.1f}x copy of the .bin {copy:.3f} s")


def _full_fixtures() -> list[Path]:
    sys.path.insert(0, str(ROOT / "fixtures"))
    import generate

    return [Path(generate.ensure_model(name, "full")) for name in ("resnet", "transformer")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, help="IR .xml to measure (default: build ResNet-50 int8)")
    parser.add_argument("--repeat", type=int, help="runs per figure; the fastest counts (default 3, --split 7)")
    parser.add_argument("--split", nargs="*", type=Path, metavar="MODEL",
                        help="time read / legalize / write in-process (default: full ResNet-50 and BERT-base)")
    parser.add_argument("--child", nargs=3, metavar=("SIDE", "MODEL", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    if args.split is not None:
        split(args.split or _full_fixtures(), args.repeat or 7)
        return
    args.repeat = args.repeat or 3
    model = args.model or CACHE / "resnet50_int8.xml"
    if not model.is_file():
        print(f"building {model} ...", file=sys.stderr)
        build_resnet50(model)
    bin_mb = model.with_suffix(".bin").stat().st_size / 2**20
    ours, theirs = _measure("lpt", model, args.repeat), _measure("openvino", model, args.repeat)
    ratio = ours["seconds"] / theirs["seconds"]
    print(f"model: {model} (.bin {bin_mb:.1f} MB)")
    print(f"lpt      read+write: {ours['seconds']:.3f} s, peak RSS {ours['peak_mb']:.0f} MB")
    print(f"openvino read+save : {theirs['seconds']:.3f} s, peak RSS {theirs['peak_mb']:.0f} MB")
    print(f"time ratio {ratio:.2f}x (target <= 3x): {'OK' if ratio <= 3 else 'MISSED'}; "
          f"peak RSS {ours['peak_mb']:.0f} MB vs budget {bin_mb + 150:.0f} MB: "
          f"{'OK' if ours['peak_mb'] <= bin_mb + 150 else 'MISSED'}")


if __name__ == "__main__":
    main()
