"""`lpt report`: which layers LPT puts in low precision and why not the others."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import LptError
from ..reports import FORMATS
from ..reports.model import STATUSES
from .options import config_option, debug_option
from .paths import check_model
from .report_many import model_paths, report_many

if TYPE_CHECKING:
    from ..reports.analyze import Analysis
    from ..reports.compare import Observed, RuntimeView
    from ..reports.model import Report
    from ..runtime.profile import Profile

EPILOG = """\b
Examples:
  lpt report model.xml                     # a line per layer, a reason each
  lpt report model.xml --status original-precision   # left in float
  lpt report model.xml --config gpu --format csv > layers.csv
  lpt report model.xml --format json --runtime CPU   # one JSON document
  lpt report exports/ --fail-under 90 --format junit > lpt.xml
  lpt report model.xml --summary-only --format csv   # the summary as CSV
  lpt report model.xml --layer conv1 --svg conv1.svg
  lpt report model.xml --html report.html  # the report as one page
  lpt report bert.xml --shape input_ids=1,128 --shape attention_mask=1,128

\b
Exit codes:
  0    report printed (low-precision share at or above --fail-under, if
       given)
  1    internal error (a bug in lpt)
  2    bad input or usage: unreadable model or config, unknown --layer,
       device not available
  3    the low-precision share (MAC-weighted, weightable layers) is below
       --fail-under (several models: the share of any one of them)
  130  interrupted (Ctrl-C); --html and --svg files are written whole or not
       at all
"""


@click.command("report", epilog=EPILOG,
               short_help="Per-layer precision report of MODEL after LPT, with a reason for every float layer.")
@click.argument("models", nargs=-1, required=True, metavar="MODEL.xml... | FOLDER", type=click.Path(path_type=Path))
@config_option()
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="junit: a test case per model (failed under --fail-under), for CI.")
@click.option("--fail-under", type=click.FloatRange(0, 100), metavar="PCT",
              help="Exit 3 when less than PCT percent of weightable MACs end up in low precision.")
@click.option("--summary-only", is_flag=True,
              help="Only the summary: a row per model and a total, in every format (as for a folder).")
@click.option("--status", "statuses", multiple=True, type=click.Choice(STATUSES),
              help="List only the layers of this status (repeatable), e.g. original-precision: the ones "
                   "that need attention. The summary stays the whole model's.")
@click.option("--shape-subgraphs", is_flag=True,
              help="Also list the layers of shape subgraphs (ShapeOf and what computes on shapes only), "
                   "which the table and markdown leave out.")
@click.option("--layer", "layer_name", metavar="NAME",
              help="Show one layer: its status and the ops around it before and after LPT.")
@click.option("--shape", "shape_specs", multiple=True, metavar="NAME=D,D,...",
              help="Input shape for the MACs of models with dynamic dimensions, as benchmark_app -shape "
                   "(repeatable; a bare 1,3,224,224 for a one-input model). Without it, dynamic "
                   "dimensions count as 1 and the summary says the MACs are per output position.")
@click.option("--runtime", "device", metavar="DEVICE",
              help="Also compile the original and the transformed model on DEVICE (e.g. CPU), run them "
                   "with performance counters and compare the prediction with what ran in INT8.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False, path_type=Path), metavar="OUT.svg",
              help="With --layer: also draw the ops around the layer before and after LPT, tensors "
                   "coloured by precision, as one self-contained SVG file.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), metavar="OUT.html",
              help="Also write the report as one self-contained HTML page: the graph before and after LPT side "
                   "by side, and the layer table (sortable, filtered by text, status, type and reason).")
@debug_option
def report(models: tuple[Path, ...], config_spec: str, fmt: str, fail_under: float | None, summary_only: bool,
           statuses: tuple[str, ...], shape_subgraphs: bool, layer_name: str | None, shape_specs: tuple[str, ...],
           device: str | None, svg_path: Path | None, html_path: Path | None) -> None:
    """Per-layer precision report of MODEL after LPT (run in memory; nothing is written).

    Every format is one document: with --runtime, JSON gets a `runtime` section, CSV a few
    columns per layer, markdown a section (the performance counters in fenced blocks); the
    table is followed by the counters and the comparison.

    Several models or a FOLDER (its *.xml): one summary row per model and a total, in every
    format; --fail-under applies to each model.
    """
    found = model_paths(models)
    paths = [check_model(path) for path in found.paths]
    shapes = None
    if shape_specs:
        from ..runtime.inputs import parse_shapes

        shapes = parse_shapes(shape_specs)
    if len(paths) > 1 or models[0].is_dir() or summary_only or fmt == "junit":
        report_many(found, config_spec, fmt, fail_under,
                    {"--layer": layer_name, "--runtime": device, "--svg": svg_path, "--html": html_path,
                     "--status": statuses, "--shape-subgraphs": shape_subgraphs}, shapes)
        return
    from .. import api  # the LPT stack loads only when a command runs

    model = paths[0]
    if svg_path is not None and layer_name is None:
        raise LptError("--svg needs --layer NAME (the layer to draw)")
    if svg_path is not None and svg_path.suffix.lower() != ".svg":
        raise LptError(f"--svg {svg_path}: the picture must be an .svg path")
    if html_path is not None and html_path.suffix.lower() not in (".html", ".htm"):
        raise LptError(f"--html {html_path}: the page must be an .html path")
    if layer_name is not None and (statuses or shape_subgraphs):
        raise LptError(f"{'--status' if statuses else '--shape-subgraphs'} chooses the layers of the table: "
                       "not with --layer NAME (one layer)")
    if device is not None:  # before the work, not after a full report has been printed
        from ..runtime.device import require_device

        require_device(device)
    from ..reports.render import render, render_layer

    analysis = api.analysis(model, config_spec, shapes)
    if html_path is not None:  # written first: a failure leaves no output behind
        from ..reports.html import report_html
        from ..reports.svg import write_document

        write_document(html_path, report_html(analysis), "--html")
    runtime = _runtime(analysis, model, device) if device is not None else None
    if layer_name is not None:
        if svg_path is not None:  # written first: a failure leaves no output behind
            from ..reports.svg import write_layer_svg

            write_layer_svg(analysis, layer_name, svg_path)
        click.echo(render_layer(analysis, layer_name, fmt, runtime), nl=False)
    else:
        shown, notes = _listed(analysis, fmt, statuses, shape_subgraphs)
        if runtime is not None:
            from dataclasses import replace

            names = {row.name for row in shown.layers}
            runtime = replace(runtime, rows=tuple(c for c in runtime.rows if c.name in names))
        click.echo(render(shown, fmt, runtime, notes), nl=False)
    share = analysis.report.summary.low_precision_share
    if fail_under is not None and share < fail_under:
        click.echo(f"lpt: low-precision share {share:.2f}% is below --fail-under {fail_under:g}%", err=True)
        click.get_current_context().exit(3)


def _listed(analysis: Analysis, fmt: str, statuses: tuple[str, ...], shape_subgraphs: bool) -> tuple[Report, list[str]]:
    """The report with the layers to list, and the lines that say which are left out: layers
    of other statuses (--status), and on a screen (table, markdown) the shape subgraphs."""
    from dataclasses import replace

    from ..reports.topology import shape_layers

    report = analysis.report
    rows = [row for row in report.layers if not statuses or row.status in statuses]
    notes = []
    if statuses:
        notes.append(f"listed: the {len(rows)} layers with status {' or '.join(statuses)} (--status)")
    if fmt in ("table", "markdown") and not shape_subgraphs:
        shape = shape_layers(analysis.before)
        hidden = sum(1 for row in rows if row.name in shape)
        if hidden:
            rows = [row for row in rows if row.name not in shape]
            notes.append(f"not listed: {hidden} layers of shape subgraphs (ShapeOf and what computes on shapes "
                         "only; --shape-subgraphs lists them)")
    return replace(report, layers=tuple(rows)), notes


def _runtime(analysis: Analysis, model: Path, device: str) -> RuntimeView:
    """Both models profiled on `device`, compared layer by layer with the prediction."""
    import tempfile

    from ..reports.analyze import write_runtime_model
    from ..reports.compare import Counters, RuntimeView, compare
    from ..runtime.layers import PERF_HEADER, perf_cells
    from ..runtime.profile import profile_model

    with tempfile.TemporaryDirectory(prefix="lpt-report-") as tmp:
        lpt_xml = write_runtime_model(analysis, tmp, model)
        original = profile_model(model, device)
        transformed = profile_model(lpt_xml, device)
    rows = compare(analysis.report, analysis.after, _observed(transformed), _observed(original))
    profiles = {"original": original, "transformed": transformed}
    counters = {side: Counters((PERF_HEADER, *(perf_cells(r) for r in p.perf))) for side, p in profiles.items()}
    return RuntimeView(device, tuple(rows), counters, {side: p.kernels for side, p in profiles.items()})


def _observed(profile: Profile) -> dict[str, Observed]:
    from ..reports.compare import Observed
    from ..runtime.layers import describe, ran_low

    return {name: Observed(describe(layer), ran_low(layer, name, own), layer.name, own, layer.layer_type,
                           quantizes=layer.float_input and layer.outputs_low, output_low=layer.outputs_low)
            for name, (layer, own) in profile.layers.items()}
