"""`lpt transform` on a generated LLM-size W8A8 IR: wall time, CPU and peak RSS against `cp` of its .bin.

Usage: python benchmarks/bench_llm.py [--dir DIR] [--blocks 16] [--symmetric] [--repeat 3] [--dialect lowp]
       python benchmarks/bench_llm.py --build XML [--blocks 16] [--symmetric]

The model is shaped like Llama-7B's decoder: per block, q/k/v/o MatMuls with 4096 x 4096 and
gate/up/down with 4096 x 11008 i8 weights (Constant -> Convert -> Multiply by per-channel
scales, transposed as exports store them), each fed by an i8 activation FakeQuantize. 16
blocks are a 3.0 GiB .bin, 37 a 7.0 GiB one. The activation interval is [-4, 4], whose zero
point (127.5 in u8, as the cpu profile quantizes it) makes LPT fold every `z @ W` from the
weights; `--symmetric` takes NNCF's
symmetric interval [-4, 4 * 127 / 128] instead (no zero point, the weights are only copied).
The .bin is written a weight at a time, so building a 7 GiB model needs little memory.

Measuring builds DIR/llama_<blocks>_<asym|sym>.xml once (kept for later runs; delete it by
hand), then alternates `cp` of the .bin and the `lpt transform --config cpu -q` process, each
in a fresh child after a `sync` (no dirty pages of the run before to write back; outputs are
deleted), and prints wall, CPU and peak RSS of each, the ratio of wall times
(targets: asymmetric <= 2x `cp`, symmetric <= 1.2x) and the peak RSS against 400 MiB. Run it
with the interpreter and PYTHONPATH of the installation to measure (e.g. after
`pip install --no-deps --target /tmp/lpt_installed .`, PYTHONPATH=/tmp/lpt_installed).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

HIDDEN, FFN, TOKENS = 4096, 11008, 8
Dims = tuple[int, ...]
Port = tuple[int, int, str, Dims]  # layer id, port id, precision, dims
RSS_LIMIT_MIB = 400
_CHUNK = 1 << 26  # bytes of random weights generated and written at a time


class _Net:
    """Layers and edges of an IR v11 as text, constants appended to the open .bin."""

    def __init__(self, bin_file: IO[bytes], seed: int) -> None:
        import numpy as np  # here: the measuring parent stays small (a child's peak RSS starts as its parent's)

        self.bin = bin_file
        self.rng = np.random.default_rng(seed)
        self.layers: list[str] = []
        self.edges: list[str] = []

    def layer(self, kind: str, version: str, inputs: list[Port], outputs: list[tuple[str, Dims]],
              data: dict[str, str] | None = None, name: str | None = None) -> list[Port]:
        """Adds a layer fed by `inputs` (layer id, port, precision, dims); returns its outputs alike."""
        lid = len(self.layers)
        text = [f'    <layer id="{lid}" name="{name or f"{kind}_{lid}"}" type="{kind}" version="{version}">\n']
        if data is not None:
            text.append("      <data" + "".join(f' {k}="{v}"' for k, v in data.items()) + "/>\n")
        names = f' names="{name}"' if kind == "Parameter" else ""  # the input, fed by name
        for tag, ports in (("input", [port[2:] for port in inputs]), ("output", outputs)):
            if not ports:
                continue
            text.append(f"      <{tag}>\n")
            for pid, (precision, dims) in enumerate(ports, 0 if tag == "input" else len(inputs)):
                inner = "".join(f"          <dim>{d}</dim>\n" for d in dims)
                text.append(f'        <port id="{pid}" precision="{precision}"{names}>\n{inner}        </port>\n'
                            if inner else f'        <port id="{pid}" precision="{precision}"{names}/>\n')
            text.append(f"      </{tag}>\n")
        self.layers.append("".join(text) + "    </layer>\n")
        for port, (source, source_port, _, _) in enumerate(inputs):
            self.edges.append(f'    <edge from-layer="{source}" from-port="{source_port}" to-layer="{lid}" '
                              f'to-port="{port}"/>\n')
        return [(lid, len(inputs) + i, precision, dims) for i, (precision, dims) in enumerate(outputs)]

    def constant(self, etype: str, precision: str, dims: tuple[int, ...], chunks: Iterator[bytes]) -> Port:
        offset = self.bin.tell()
        for chunk in chunks:
            self.bin.write(chunk)
        size = self.bin.tell() - offset
        data = {"element_type": etype, "shape": ", ".join(map(str, dims)), "offset": str(offset), "size": str(size)}
        return self.layer("Const", "opset1", [], [(precision, dims)], data)[0]

    def f32(self, value: np.ndarray | float) -> Port:
        import numpy as np

        value = np.asarray(value, np.float32)
        return self.constant("f32", "FP32", value.shape, iter([value.tobytes()]))

    def weights(self, rows: int, columns: int) -> Port:
        """Convert(i8 [rows, columns]) * per-row scales, the random bytes streamed to the .bin."""
        import numpy as np

        def chunks() -> Iterator[bytes]:
            left = rows * columns
            while left:
                count = min(left, _CHUNK)
                yield self.rng.integers(-127, 128, count, dtype=np.int8).tobytes()
                left -= count
        dims = (rows, columns)
        raw = self.constant("i8", "I8", dims, chunks())
        converted = self.layer("Convert", "opset1", [raw], [("FP32", dims)], {"destination_type": "f32"})[0]
        scales = self.f32(self.rng.uniform(1e-3, 1e-2, (rows, 1)))
        return self.binary("Multiply", converted, scales, dims)

    def binary(self, kind: str, a: Port, b: Port, dims: tuple[int, ...]) -> Port:
        return self.layer(kind, "opset1", [a, b], [("FP32", dims)], {"auto_broadcast": "numpy"})[0]

    def fake_quantize(self, x: Port, low: float, high: float) -> Port:
        bounds = [self.f32(v) for v in (low, high, low, high)]
        return self.layer("FakeQuantize", "opset1", [x, *bounds], [("FP32", x[3])],
                          {"levels": "256", "auto_broadcast": "numpy"})[0]

    def mat_mul(self, x: Port, rows: int) -> Port:
        """x [1, T, k] times transposed weights [rows, k]."""
        weights = self.weights(rows, x[3][-1])
        return self.layer("MatMul", "opset1", [x, weights], [("FP32", (*x[3][:-1], rows))],
                          {"transpose_a": "false", "transpose_b": "true"})[0]

    def text(self, name: str) -> str:
        return ("<?xml version='1.0' encoding='UTF-8'?>\n"
                f'<net name="{name}" version="11">\n  <layers>\n{"".join(self.layers)}  </layers>\n'
                f'  <edges>\n{"".join(self.edges)}  </edges>\n</net>\n')


def build(xml: Path, blocks: int, symmetric: bool, hidden: int = HIDDEN, ffn: int = FFN) -> Path:
    """Writes the LLM-shaped IR `xml` and its .bin (see the module docstring)."""
    high = 4.0 * 127 / 128 if symmetric else 4.0
    dims = (1, TOKENS, hidden)
    with open(xml.with_suffix(".bin"), "wb") as bin_file:
        net = _Net(bin_file, seed=0)
        h = net.layer("Parameter", "opset1", [], [("FP32", dims)],
                      {"shape": ",".join(map(str, dims)), "element_type": "f32"}, name="hidden")[0]
        for _ in range(blocks):
            a = net.fake_quantize(h, -4.0, high)
            q, k, v = (net.mat_mul(a, hidden) for _ in range(3))
            mixed = net.binary("Add", net.binary("Multiply", q, k, dims), v, dims)
            h = net.binary("Add", h, net.mat_mul(net.fake_quantize(mixed, -4.0, high), hidden), dims)
            a = net.fake_quantize(h, -4.0, high)
            gate = net.layer("Swish", "opset4", [net.mat_mul(a, ffn)], [("FP32", (1, TOKENS, ffn))])[0]
            up = net.binary("Multiply", gate, net.mat_mul(a, ffn), (1, TOKENS, ffn))
            h = net.binary("Add", h, net.mat_mul(net.fake_quantize(up, -4.0, high), hidden), dims)
        net.layer("Result", "opset1", [h], [], name="output")
    xml.write_text(net.text(xml.stem))
    return xml


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def run_child(args: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of a fresh process `args`, run outside any checkout (so
    `python -m lpt_cli` imports the installation measured), its output discarded."""
    started = time.perf_counter()
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, cwd=tempfile.gettempdir())
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(args)}: exit {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def measure(xml: Path, symmetric: bool, repeat: int, dialect: str = "runtime") -> None:
    out = xml.with_name(f"{xml.stem}_out.xml")
    copied = xml.with_name(f"{xml.stem}_copy.bin")
    gib = xml.with_suffix(".bin").stat().st_size / 2**30
    print(f"{xml.name} ({gib:.2f} GiB .bin), {load_line()}")
    runs: dict[str, list[tuple[float, float, float]]] = {"cp": [], "lpt": []}
    try:
        for _ in range(repeat):  # alternating, so load from other processes hits both alike
            os.sync()  # each starts with no dirty pages of the one before to write back
            runs["cp"].append(run_child(["cp", str(xml.with_suffix(".bin")), str(copied)]))
            copied.unlink()
            os.sync()
            runs["lpt"].append(run_child([sys.executable, "-m", "lpt_cli", "transform", str(xml), "--config", "cpu",
                                          "--dialect", dialect, "-o", str(out), "-q"]))
            for path in (out, out.with_suffix(".bin")):
                path.unlink()
    finally:
        for path in (copied, out, out.with_suffix(".bin")):
            path.unlink(missing_ok=True)
    for name, label in (("cp", "cp of the .bin"), ("lpt", f"lpt transform --config cpu --dialect {dialect} -q")):
        walls, cpus, peaks = zip(*runs[name])
        print(f"  {label:<48} wall {min(walls):.2f}-{max(walls):.2f} s, CPU {min(cpus):.2f}-{max(cpus):.2f} s, "
              f"peak RSS {max(peaks):.0f} MiB")
    ratios = [lpt[0] / cp[0] for cp, lpt in zip(runs["cp"], runs["lpt"])]
    bound = 1.2 if symmetric else 2.0
    peak = max(run[2] for run in runs["lpt"])
    print(f"  wall ratio to cp, run by run: {', '.join(f'{r:.2f}x' for r in ratios)} (target <= {bound}x: "
          f"{'OK' if max(ratios) <= bound else 'MISSED'}); peak RSS {peak:.0f} MiB (target <= {RSS_LIMIT_MIB} MiB: "
          f"{'OK' if peak <= RSS_LIMIT_MIB else 'MISSED'})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/work/llm-models"), help="where the models are kept")
    parser.add_argument("--blocks", type=int, default=16, help="decoder blocks (16: 3.0 GiB, 37: 7.0 GiB)")
    parser.add_argument("--symmetric", action="store_true", help="NNCF's symmetric activation interval")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, alternating")
    parser.add_argument("--dialect", choices=("runtime", "lowp"), default="runtime",
                        help="lpt's output dialect (lowp writes every z @ W, runtime drops most unread)")
    parser.add_argument("--build", type=Path, metavar="XML", help="only write the model to XML")
    args = parser.parse_args(argv)
    if args.build:
        build(args.build, args.blocks, args.symmetric)
        return 0
    xml = args.dir / f"llama_{args.blocks}_{'sym' if args.symmetric else 'asym'}.xml"
    if not (xml.exists() and xml.with_suffix(".bin").exists()):
        args.dir.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        build(xml, args.blocks, args.symmetric)
        print(f"built {xml} in {time.perf_counter() - started:.0f} s")
    measure(xml, args.symmetric, args.repeat, args.dialect)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
