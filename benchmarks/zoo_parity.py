"""Zoo parity: lpt against the CPU plugin's own LPT, one row per real-export model.

    python benchmarks/zoo_parity.py [--zoo DIR] [--only NAME ...] [--json FILE]

For every model of `fixtures/zoo.py` (built on demand), `lpt transform --config cpu` writes the
runtime and lowp dialects; the original and lpt's runtime output are compiled by the CPU plugin
(INFERENCE_PRECISION_HINT f32) in child processes, so a crash is a result. The checks:
  compiles  lpt's runtime output compiles and runs
  kernels   the same weightable kernels (layerType, runtimePrecision, primitiveType), counted
  names     every INT8 weightable layer of the original is still named in lpt's runtime model
  outputs   outputs within 1e-5 of max|output| on full-size inputs (padded attention masks)
  lowp      in lpt's lowp output those layers take u8/i8 (directly or via a zero-point Subtract)
  report    `lpt report` predicts exactly the weightable layers the plugin runs in INT8
  size      the output .bin is at most 1.1x the input's
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fixtures import zoo  # noqa: E402
from lpt_cli.ir.reader import read_ir  # noqa: E402
from lpt_cli.ir.writer import write_ir  # noqa: E402
from lpt_cli.lpt.config import load_config  # noqa: E402
from lpt_cli.lpt.pipeline import run_pipeline  # noqa: E402
from lpt_cli.reports.analyze import analyze  # noqa: E402
from lpt_cli.runtime.layers import RuntimeLayer  # noqa: E402
from lpt_cli.runtime.oracle import PluginRun, plugin_run  # noqa: E402

CHECKS = ("compiles", "kernels", "names", "outputs", "lowp", "report", "size")
WEIGHTABLE_RUNTIME = frozenset({"Convolution", "GroupConvolution", "Deconvolution", "FullyConnected", "MatMul",
                                "FullyConnectedCompressed"})
WEIGHTABLE_IR = frozenset({"Convolution", "GroupConvolution", "ConvolutionBackpropData", "MatMul"})
TOLERANCE = 1e-5
# Names OpenVINO generated (`Multiply_42810` for a convolution a converter folded a Multiply
# into): no user knows them, and the plugin renumbers them, so the names check skips them.
_AUTO_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*_\d+$")


@dataclass
class Row:
    model: str
    results: dict[str, bool] = field(default_factory=dict)
    details: dict[str, str] = field(default_factory=dict)
    transform_seconds: float = 0.0

    def record(self, check: str, ok: bool, detail: str = "") -> None:
        self.results[check] = ok
        if detail:
            self.details[check] = detail


def _kernels(run: PluginRun) -> Counter[tuple[str, str, str]]:
    return Counter((layer.layer_type, layer.runtime_precision, layer.primitive) for layer in run.layers
                   if layer.layer_type in WEIGHTABLE_RUNTIME)


def _int8_layers(run: PluginRun) -> list[RuntimeLayer]:
    """Ops on an integer kernel (`..._I8`/`_i8`) that may hold a weightable layer: the weightable
    kernels, and snippets Subgraphs (an attention MatMul runs inside one). A weight-compressed
    FullyConnected reports u8/u4 weights but computes in f32: the precision alone does not tell."""
    return [layer for layer in run.layers if layer.layer_type in (*WEIGHTABLE_RUNTIME, "Subgraph")
            and layer.primitive.lower().endswith(("_i8", "_u8"))]


def _ir_layer(layer: RuntimeLayer, weightable: set[str]) -> str | None:
    """The IR weightable layer a runtime op computes (LPT names a MatMul's output NAME/DequantizationMultiply)."""
    for name in layer.original_names:
        for candidate in (name, name.removesuffix("/DequantizationMultiply")):
            if candidate in weightable:
                return candidate
    return None


def check_model(name: str, folder: Path, work: Path) -> Row:
    """Runs every check on one zoo model; a failing check never stops the others."""
    row = Row(name)
    doc = zoo.sidecar(folder, name)
    xml = folder / f"{name}.xml"
    assert doc is not None, f"{name} is not built in {folder}"
    feed = zoo.test_inputs(doc)
    config = load_config("cpu")
    start = time.perf_counter()
    graph = read_ir(xml)
    run_pipeline(graph, config)
    runtime_xml, lowp_xml = work / f"{name}.runtime.xml", work / f"{name}.lowp.xml"
    write_ir(graph, runtime_xml, dialect="runtime")
    row.transform_seconds = time.perf_counter() - start
    write_ir(graph, lowp_xml, dialect="lowp")

    ratio = runtime_xml.with_suffix(".bin").stat().st_size / max(xml.with_suffix(".bin").stat().st_size, 1)
    row.record("size", ratio <= 1.1, f"{ratio:.2f}x")

    original, ours = plugin_run(xml, feed), plugin_run(runtime_xml, feed)
    if not original.ok:
        raise RuntimeError(f"{name}: the original does not run on the plugin: {original.error}")
    row.record("compiles", ours.ok, "" if ours.ok else f"{'crash' if ours.crashed else 'refused'}: {ours.error}")
    weightable = {n.name for n in read_ir(xml) if n.type in WEIGHTABLE_IR}
    plugin_int8 = {ir for layer in _int8_layers(original) if (ir := _ir_layer(layer, weightable))}
    # Layers the plugin fused into a node named otherwise (an attention Subgraph): it does not say
    # how they ran, so they are compared on neither side.
    seen = {ir for layer in original.layers if (ir := _ir_layer(layer, weightable))}
    report = analyze(xml, config).report
    predicted = {r.name for r in report.layers if r.type in WEIGHTABLE_IR and r.status == "low-precision"}
    missing = sorted(plugin_int8 - predicted)
    row.record("lowp", not missing, f"{len(missing)} of {len(plugin_int8)} not u8/i8: {missing[:2]}" if missing else "")
    extra = sorted((predicted & seen) - plugin_int8)
    row.record("report", not missing and not extra,
               f"missing {len(missing)}, extra {len(extra)} {extra[:2]}" if missing or extra else "")
    if not ours.ok:
        for check in ("kernels", "names", "outputs"):
            row.record(check, False, "no runtime model")
        return row
    want, got = _kernels(original), _kernels(ours)
    row.record("kernels", want == got, "" if want == got else
               f"original-only {sorted((want - got).items())[:2]}, lpt-only {sorted((got - want).items())[:2]}")
    names = {n for layer in ours.layers for n in layer.original_names}
    own = sorted(n for n in plugin_int8 if not _AUTO_NAME.match(n))
    lost = [n for n in own if n not in names and not any(m.startswith(f"{n}/Dequantization") for m in names)]
    row.record("names", not lost, f"{len(lost)} of {len(own)} lost, e.g. {lost[0]}" if lost else "")
    errors = [float(np.abs(a.astype(np.float64) - b).max() / max(float(np.abs(a).max()), 1e-30))
              for a, b in zip(original.outputs, ours.outputs)]
    worst = max(errors) if errors else 0.0
    row.record("outputs", worst <= TOLERANCE, f"{worst:.1e}")
    return row


def run(folder: Path, names: list[str]) -> list[Row]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="lpt-zoo-") as tmp:
        for entry in zoo.ZOO:
            if names and entry.name not in names:
                continue
            zoo.build(entry, folder)
            rows.append(check_model(entry.name, folder, Path(tmp)))
            print(format_row(rows[-1]), flush=True)
    return rows


def format_row(row: Row) -> str:
    cells = []
    for check in CHECKS:
        mark = "ok" if row.results.get(check) else "FAIL"
        detail = row.details.get(check)
        cells.append(f"{check} {mark}" + (f" ({detail})" if detail and check in ("size", "outputs") else ""))
    return f"{row.model:20} | " + " | ".join(cells) + f" | transform {row.transform_seconds:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--zoo", type=Path, default=zoo.DEFAULT_DIR)
    parser.add_argument("--only", nargs="+", choices=zoo.NAMES, default=[])
    parser.add_argument("--json", type=Path, help="also write the rows (with failure details) as JSON")
    args = parser.parse_args(argv)
    rows = run(args.zoo, args.only)
    passed = sum(all(r.results.get(c) for c in CHECKS) for r in rows)
    print(f"{passed}/{len(rows)} models pass all {len(CHECKS)} checks")
    for row in rows:
        for check, detail in row.details.items():
            if not row.results.get(check):
                print(f"  {row.model}::{check}: {detail}")
    if args.json:
        args.json.write_text(json.dumps([row.__dict__ for row in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
