"""Zoo parity: lpt against the CPU plugin's own LPT, one row per real-export model.

    python benchmarks/zoo_parity.py [--zoo DIR] [--only NAME ...] [--isa-cap ISA] [--json FILE]

For every model of `fixtures/zoo.py` (built on demand), `lpt transform --config cpu` writes the
runtime and lowp dialects; the original and lpt's runtime output are compiled by the CPU plugin
(INFERENCE_PRECISION_HINT f32) in child processes, so a crash is a result. With `--isa-cap ISA`
those children run with ONEDNN_MAX_CPU_ISA=ISA and `cpu` resolves under that cap, as the plugin's
does (lpt_cli/isa.py). The checks:
  compiles  lpt's runtime output compiles and runs
  kernels   the same weightable kernels (layerType, runtimePrecision, primitiveType), counted
  names     every INT8 weightable layer of the original is still named in lpt's runtime model
  outputs   outputs within 1e-5 of max|output| on full-size inputs (padded attention masks, 128
            tokens); bit-exact for a model without FakeQuantize (weight-only compressed: no LPT)
  lowp      in lpt's lowp output (read back) those layers take u8/i8, directly or through a
            zero-point Subtract
  report    `lpt report` predicts exactly the weightable layers the plugin runs in INT8, with their
            u8/i8 activations (runtime/parity.py, read_int8 and judge_prediction: a layer inside a
            snippets Subgraph by its dequantization, kernels named after no layer by count), and as
            many recurrent cells on integers (a bidirectional sequence is two)
  size      the output .bin is at most 1.1x the input's
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fixtures import zoo
from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir
from lpt_cli.isa import CAP_VARIABLES
from lpt_cli.lpt.engine.config import resolve_profile
from lpt_cli.lpt.engine.layer_checks import is_constant_path
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.reports.analyze import analyze
from lpt_cli.reports.topology import (
    RECURRENT,
    WEIGHTABLE,
    by_name,
    find_twin,
    is_low,
    layer_operands,
)
from lpt_cli.runtime import parity
from lpt_cli.runtime.oracle import plugin_run

CHECKS = ("compiles", "kernels", "names", "outputs", "lowp", "report", "size")
TOLERANCE = 1e-5


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

    def guarded(self, check: str, run: Callable[[], tuple[bool, str]]) -> None:
        """Records `run()`'s verdict, or a crash of the check itself as its failure."""
        try:
            self.record(check, *run())
        except Exception as exc:  # noqa: BLE001 - one broken check never stops the others
            self.record(check, False, f"crash: {type(exc).__name__}: {str(exc)[:200]}")

    def fail_rest(self, detail: str) -> None:
        for check in CHECKS:
            if check not in self.results:
                self.record(check, False, detail)


def _lowp_operands(original: Path, lowp: Path, names: set[str]) -> tuple[bool, str]:
    """Every layer of `names` takes u8/i8 operands in lpt's lowp graph (through a zero point)."""
    before, now = by_name(read_ir(original)), by_name(read_ir(lowp))
    float_fed = []
    for name in sorted(names):
        twin = find_twin(before[name], now)
        operands = layer_operands(twin) if twin is not None else []
        if len(operands) != 2 or not all(is_low(v) for v in operands):
            float_fed.append(name)
    return not float_fed, f"{len(float_fed)} of {len(names)} not u8/i8: {float_fed[:2]}" if float_fed else ""


def check_model(name: str, folder: Path, work: Path, cap: str | None = None) -> Row:
    """Runs every check on one zoo model under the ISA `cap` (None: this CPU as it is); a failing
    or crashing check never stops the others."""
    row = Row(name)
    doc = zoo.sidecar(folder, name)
    xml = folder / f"{name}.xml"
    if doc is None:
        row.fail_rest(f"not built in {folder}")
        return row
    feed = zoo.test_inputs(doc)
    env = {CAP_VARIABLES[0]: cap} if cap else {}
    config = resolve_profile("cpu", environ=env)
    source = read_ir(xml)
    weightable = {n.name for n in source if n.type in WEIGHTABLE}
    weight_carrying = {n.name for n in source if n.type in WEIGHTABLE and is_constant_path(n.input_node(1))}
    fake_quantized = any(n.type == "FakeQuantize" for n in source)
    original = plugin_run(xml, feed, env=env)
    if not original.ok:
        row.fail_rest(f"the original does not run on the plugin: {original.error}")
        return row
    runtime_xml, lowp_xml = work / f"{name}.runtime.xml", work / f"{name}.lowp.xml"
    try:
        start = time.perf_counter()
        graph = read_ir(xml)
        run_pipeline(graph, config)
        write_ir(graph, runtime_xml, dialect="runtime")
        row.transform_seconds = time.perf_counter() - start
        write_ir(graph, lowp_xml, dialect="lowp")
    except Exception as exc:  # noqa: BLE001 - reported as the row's failure
        row.fail_rest(f"transform crashed: {type(exc).__name__}: {str(exc)[:200]}")
        return row
    aliases = parity.fused_multiply_aliases(graph)
    truth = parity.read_int8(original.layers, weightable, aliases, parity.unreported_kernel_layers(source))

    def predicted() -> tuple[bool, str]:
        report = analyze(xml, config).report
        low = {r.name: r.input_precisions[0] for r in report.layers if r.type in WEIGHTABLE and r.status == "low-precision"}
        problems = parity.judge_prediction(truth, low, weight_carrying)
        cells = sum(2 if source.find(r.name).attrs.get("direction") == "bidirectional" else 1
                    for r in report.layers if r.type in RECURRENT and r.status == "low-precision")
        if cells != parity.int8_recurrent_cells(original.layers):
            problems.append(f"{cells} recurrent cells on integers predicted, the plugin ran "
                            f"{parity.int8_recurrent_cells(original.layers)}")
        return not problems, "; ".join(problems)

    row.guarded("report", predicted)

    def size() -> tuple[bool, str]:
        ratio = runtime_xml.with_suffix(".bin").stat().st_size / max(xml.with_suffix(".bin").stat().st_size, 1)
        return ratio <= 1.1, f"{ratio:.2f}x"

    row.guarded("size", size)
    row.guarded("lowp", lambda: _lowp_operands(xml, lowp_xml, set(truth.int8)))
    ours = plugin_run(runtime_xml, feed, env=env)
    row.record("compiles", ours.ok, "" if ours.ok else f"{'crash' if ours.crashed else 'refused'}: {ours.error}")
    if not ours.ok:
        row.fail_rest("no runtime model")
        return row

    def kernels() -> tuple[bool, str]:
        want, got = parity.weightable_kernels(original.layers), parity.weightable_kernels(ours.layers)
        return want == got, "" if want == got else (
            f"original-only {sorted((want - got).items())[:2]}, lpt-only {sorted((got - want).items())[:2]}")

    def names() -> tuple[bool, str]:
        lost = parity.lost_names(truth.int8, ours.layers, aliases)
        return not lost, f"{len(lost)} of {len(truth.int8)} lost, e.g. {lost[0]}" if lost else ""

    def outputs() -> tuple[bool, str]:
        worst = parity.worst_relative_error(original.outputs, ours.outputs)
        if not fake_quantized:  # no LPT at all: the very same computation
            exact = parity.bit_exact(original.outputs, ours.outputs)
            return exact, "bit-exact" if exact else f"not bit-exact: {worst:.1e}"
        return worst <= TOLERANCE, f"{worst:.1e}"

    row.guarded("kernels", kernels)
    row.guarded("names", names)
    row.guarded("outputs", outputs)
    return row


def build_and_check(name: str, build: Callable[[], object], folder: Path, work: Path, cap: str | None = None) -> Row:
    """Runs `build()` (which writes NAME into `folder` unless it is there) and checks NAME under the ISA
    `cap`; a failed build is the row's failure."""
    try:
        build()
    except Exception as exc:  # noqa: BLE001 - a model that cannot be built is a failed row
        row = Row(name)
        row.fail_rest(f"build failed: {type(exc).__name__}: {str(exc)[:200]}")
        return row
    return check_model(name, folder, work, cap)


def run(folder: Path, names: list[str], cap: str | None = None) -> list[Row]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="lpt-zoo-") as tmp:
        for entry in zoo.ZOO + (zoo.PROBES if names else ()):
            if names and entry.name not in names:
                continue
            rows.append(build_and_check(entry.name, functools.partial(zoo.build, entry, folder), folder, Path(tmp),
                                        cap))
            print(format_row(rows[-1]), flush=True)
    return rows


def format_row(row: Row, width: int = 20) -> str:
    cells = []
    for check in CHECKS:
        mark = "ok" if row.results.get(check) else "FAIL"
        detail = row.details.get(check)
        cells.append(f"{check} {mark}" + (f" ({detail})" if detail and check in ("size", "outputs") else ""))
    return f"{row.model:{width}} | " + " | ".join(cells) + f" | transform {row.transform_seconds:.2f} s"


def print_summary(rows: list[Row]) -> None:
    """How many rows pass every check, then each failed check with its detail."""
    passed = sum(all(r.results.get(c) for c in CHECKS) for r in rows)
    print(f"{passed}/{len(rows)} models pass all {len(CHECKS)} checks")
    for row in rows:
        for check, detail in row.details.items():
            if not row.results.get(check):
                print(f"  {row.model}::{check}: {detail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--zoo", type=Path, default=zoo.DEFAULT_DIR)
    parser.add_argument("--only", nargs="+", choices=zoo.NAMES + zoo.PROBE_NAMES, default=[],
                        help="only these models (zoo or probe; probes run only when named)")
    parser.add_argument("--isa-cap", metavar="ISA",
                        help="run the plugin with ONEDNN_MAX_CPU_ISA=ISA and resolve `cpu` under it (e.g. AVX2)")
    parser.add_argument("--json", type=Path, help="also write the rows (with failure details) as JSON")
    args = parser.parse_args(argv)
    rows = run(args.zoo, args.only, args.isa_cap)
    print_summary(rows)
    if args.json:
        args.json.write_text(json.dumps([row.__dict__ for row in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
