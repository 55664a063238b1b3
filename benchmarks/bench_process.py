"""`lpt` as a user runs it: whole-process CPU against a process compiling with OpenVINO, startup, writing, memory.

Usage: python benchmarks/bench_process.py [IR.xml ...] [--repeat 3] [--big N]

Sections, each printing its figures and the target as a ratio measured in the same run:
  startup    `lpt --help` and `lpt transform --help` against `python -c pass`, with and
             without PYTHONDONTWRITEBYTECODE=1 (target: within 0.15 s)
  transform  like for like: the CPU time of the `lpt transform --quiet` process (a fresh
             interpreter: startup, imports, read, pipeline, write) against that of a fresh
             `python -c "import openvino as ov; ov.Core().compile_model(IR, 'CPU')"` process
             (target <= 0.4x), and the floor, a process that only imports numpy, lxml and click
             (what any Python tool on lpt's stack pays before reading a byte), against the same;
             the three run round robin, the least CPU of each counts; for each IR given, by
             default the full-size ResNet-50 and BERT-base-like fixtures (built into
             fixtures/cache on first use); then the process printing its summary
  write      write_ir of the transformed graph against a plain copy of the input .bin (target <= 2x)
  memory     with --big N: peak RSS of `lpt transform` on a generated model with N x N i8 weights
             (N=32768 is a 1 GiB .bin; generated in a temporary folder and deleted) against
             400 MiB (LLM-shaped models: bench_llm.py)
Run it with the interpreter and PYTHONPATH of the installation to measure (e.g. after
`pip install --no-deps --target /tmp/lpt_installed .`, PYTHONPATH=/tmp/lpt_installed).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODELS = ("resnet", "transformer")  # fixtures/generate.py names, "full" size


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def verdict(ok: bool) -> str:
    return "OK" if ok else "MISSED"


def best_of(repeat: int, run: Callable[[], float]) -> float:
    return min(run() for _ in range(repeat))


def run_child(args: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of a fresh `python ARGS`, from the child's own resource usage
    (CPU time is what other load on the machine does not inflate). Its stdout is discarded, its
    stderr kept in a file (not a terminal, as in a script) and shown if it fails."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        # Run outside any checkout: `-c` and `-m` put the working directory first on sys.path, so
        # from a checkout the child would import its sources instead of the installation measured.
        child = subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.DEVNULL, stderr=errors,
                                 cwd=tempfile.gettempdir())
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status):
            errors.seek(0)
            raise SystemExit(f"python {' '.join(args)}: exit {os.waitstatus_to_exitcode(status)}\n"
                             f"{errors.read().decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def best_runs(repeat: int, args: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall s, CPU s) of a fresh `python ARGS`, each the best of `repeat` runs."""
    runs = [run_child(args, env) for _ in range(repeat)]
    return min(run[0] for run in runs), min(run[1] for run in runs)


def section_startup(repeat: int) -> None:
    print(f"\n== startup: --help against `python -c pass` ==  ({load_line()})")
    for label, extra in (("bytecode cached", {}), ("PYTHONDONTWRITEBYTECODE=1", {"PYTHONDONTWRITEBYTECODE": "1"})):
        env = {**os.environ, **extra}
        base, base_cpu = best_runs(repeat, ["-c", "pass"], env)
        print(f"{label}: python -c pass {base:.3f} s (CPU {base_cpu:.3f} s)")
        for args in (["--help"], ["transform", "--help"]):
            seconds, cpu = best_runs(repeat, ["-m", "lpt_cli", *args], env)
            extra_s = seconds - base
            print(f"  lpt {' '.join(args):<17} {seconds:.3f} s (CPU {cpu:.3f} s)  (+{extra_s:.3f} s; "
                  f"target +0.15 s: {verdict(extra_s <= 0.15)})")


def write_seconds(xml: Path, tmp: Path, repeat: int) -> tuple[float, float]:
    """(write_ir of the transformed graph, shutil.copyfile of the input .bin), best of `repeat`."""
    from lpt_cli.ir.reader import read_ir
    from lpt_cli.ir.writer import write_ir
    from lpt_cli.lpt.engine.config import load_config
    from lpt_cli.lpt.engine.pipeline import run_pipeline

    graph = read_ir(xml)
    run_pipeline(graph, load_config("cpu"))

    def write() -> float:
        started = time.perf_counter()
        write_ir(graph, tmp / "written.xml")
        return time.perf_counter() - started

    def copy() -> float:
        started = time.perf_counter()
        shutil.copyfile(xml.with_suffix(".bin"), tmp / "copied.bin")
        return time.perf_counter() - started

    write()  # untimed: legalize's imports
    return best_of(repeat, write), best_of(repeat, copy)


def section_transform(models: list[Path], repeat: int) -> None:
    print(f"\n== transform: the `lpt transform -q` process vs a process compiling with OpenVINO, CPU time ==  "
          f"({load_line()})")
    # The CLI runs numpy with one OpenBLAS thread, as the floor here: the part of the ratio no change
    # to lpt can remove.
    floor = ["-c", "import numpy, lxml.etree, click"]
    floor_env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    ratios = []
    with tempfile.TemporaryDirectory(prefix="bench_process_") as name:
        tmp = Path(name)
        for xml in models:
            command = ["-m", "lpt_cli", "transform", str(xml), "-o", str(tmp / "out.xml")]
            compile_args = ["-c", f"import openvino as ov; ov.Core().compile_model({str(xml)!r}, 'CPU')"]
            runs: dict[str, list[tuple[float, float, float]]] = {"lpt": [], "compile": [], "floor": []}
            for _ in range(repeat):  # round robin: load from other processes hits all three alike
                runs["lpt"].append(run_child([*command, "-q"]))
                runs["compile"].append(run_child(compile_args))
                runs["floor"].append(run_child(floor, floor_env))
            (ours, cpu), (theirs, theirs_cpu), (_, floor_cpu) = (
                (min(r[0] for r in runs[k]), min(r[1] for r in runs[k])) for k in ("lpt", "compile", "floor"))
            loud, loud_cpu = best_runs(repeat, command)
            written, copied = write_seconds(xml, tmp, repeat)
            size = xml.with_suffix(".bin").stat().st_size / 1e6
            ratios.append(cpu / theirs_cpu)
            print(f"{xml.name} ({size:.1f} MB .bin, {xml})")
            print(f"  lpt transform -q process CPU {cpu:.3f} s (wall {ours:.3f} s); compile process CPU "
                  f"{theirs_cpu:.3f} s (wall {theirs:.3f} s): ratio {cpu / theirs_cpu:.2f}x (target <= 0.4x): "
                  f"{verdict(cpu <= 0.4 * theirs_cpu)}; the floor, CPU {floor_cpu:.3f} s, is {floor_cpu / theirs_cpu:.2f}x")
            print(f"  lpt transform process (the summary to a file) CPU {loud_cpu:.3f} s (wall {loud:.3f} s)")
            print(f"  write_ir {written:.3f} s, copy of the .bin {copied:.3f} s: ratio {written / copied:.2f}x "
                  f"(target <= 2x): {verdict(written <= 2 * copied)}")
    print(f"(least of {repeat} each; ratios {min(ratios):.2f}-{max(ratios):.2f}x, "
          f"{sum(r <= 0.4 for r in ratios)} of {len(ratios)} within 0.4x)")


def build_big(n: int, path: Path) -> Path:
    """FakeQuantize -> MatMul with N x N i8 weights (Constant -> Convert -> Multiply)."""
    import numpy as np
    import openvino as ov
    import openvino.opset13 as ops

    pattern = np.arange(-100, 100, dtype=np.int8)
    weights = np.resize(pattern, (n, n))
    x = ops.parameter([1, n], np.float32, name="input")
    scaled = ops.multiply(ops.convert(ops.constant(weights), np.float32),
                          ops.constant(np.full((n, 1), 0.01, np.float32)))
    y = ops.matmul(ops.fake_quantize(x, -4.0, 4.0, -4.0, 4.0, 256), scaled, False, True)
    ov.save_model(ov.Model([y], [x], f"big{n}"), str(path), compress_to_fp16=False)
    return path


def section_memory(n: int) -> None:
    print(f"\n== memory: lpt transform on {n} x {n} i8 weights ==  ({load_line()})")
    with tempfile.TemporaryDirectory(prefix="bench_process_big_") as name:
        tmp = Path(name)
        # built in a child: the generator's own copy of the weights must not count here
        subprocess.run([sys.executable, __file__, "--build-big", str(n), str(tmp / "big.xml")], check=True)
        xml = tmp / "big.xml"
        bin_mb = xml.with_suffix(".bin").stat().st_size / 2**20
        seconds, _, peak = run_child(["-m", "lpt_cli", "transform", str(xml), "-o", str(tmp / "out.xml"), "-q"])
        print(f"  .bin {bin_mb:.0f} MiB: {seconds:.1f} s, peak RSS {peak:.0f} MiB (target <= 400 MiB, whatever "
              f"the .bin's size): {verdict(peak <= 400)}")


def default_models() -> list[Path]:
    sys.path.insert(0, str(ROOT / "fixtures"))
    import generate

    return [Path(generate.ensure_model(name, "full")) for name in DEFAULT_MODELS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="IR .xml files (default: full ResNet-50 and BERT-base)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the fastest counts")
    parser.add_argument("--big", type=int, metavar="N", help="also the memory section with N x N i8 weights")
    parser.add_argument("--build-big", nargs=2, metavar=("N", "XML"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build_big:
        build_big(int(args.build_big[0]), Path(args.build_big[1]))
        return 0
    print(f"bench_process: python {sys.version.split()[0]} ({sys.executable}), "
          f"PYTHONPATH={os.environ.get('PYTHONPATH', '')}; {load_line()}")
    section_startup(args.repeat)
    section_transform([model.resolve() for model in args.models] or default_models(), args.repeat)
    if args.big:
        section_memory(args.big)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
