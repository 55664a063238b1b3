"""`lpt report`: which layers LPT puts in low precision and why not the others."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import LptError
from ..reports import FORMATS
from .paths import check_model
from .report_many import model_paths, report_many

if TYPE_CHECKING:
    from ..reports.analyze import Analysis
    from ..reports.compare import Comparison, Observed
    from ..runtime.profile import Profile

EPILOG = """\b
Exit codes:
  0  report printed (low-precision share at or above --fail-under, if given)
  2  bad input: unreadable model or config, unknown --layer, device not available
  3  the low-precision share (MAC-weighted, weightable layers) is below --fail-under
     (several models: the share of any one of them)
"""


@click.command("report", epilog=EPILOG,
               short_help="Per-layer precision report of MODEL after LPT, with a reason for every float layer.")
@click.argument("models", nargs=-1, required=True, metavar="MODEL.xml... | FOLDER", type=click.Path(path_type=Path))
@click.option("--config", "config_spec", default="cpu", show_default=True,
              help="Built-in profile (default, cpu, a cpu-* profile, gpu, gpu-xmx: `lpt config list`) or a YAML config file.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--fail-under", type=click.FloatRange(0, 100), metavar="PCT",
              help="Exit 3 when less than PCT percent of weightable MACs end up in low precision.")
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
def report(models: tuple[Path, ...], config_spec: str, fmt: str, fail_under: float | None, layer_name: str | None,
           shape_specs: tuple[str, ...], device: str | None, svg_path: Path | None, html_path: Path | None) -> None:
    """Per-layer precision report of MODEL after LPT (run in memory; nothing is written).

    With --runtime and --format json, the comparison is a `runtime` section of the JSON
    (the performance counters are then left out); otherwise it follows the report as text.

    Several models or a FOLDER (its *.xml): one summary row per model and a total, in every
    format; --fail-under applies to each model.
    """
    paths = [check_model(path) for path in model_paths(models)]
    if len(paths) > 1 or models[0].is_dir():
        report_many(paths, config_spec, fmt, fail_under,
                    {"--layer": layer_name, "--shape": shape_specs, "--runtime": device, "--svg": svg_path,
                     "--html": html_path})
        return
    from .. import api  # the LPT stack loads only when a command runs

    model = paths[0]
    if svg_path is not None and layer_name is None:
        raise LptError("--svg needs --layer NAME (the layer to draw)")
    if svg_path is not None and svg_path.suffix.lower() != ".svg":
        raise LptError(f"--svg {svg_path}: the picture must be an .svg path")
    if html_path is not None and html_path.suffix.lower() not in (".html", ".htm"):
        raise LptError(f"--html {html_path}: the page must be an .html path")
    if device is not None:  # before the work, not after a full report has been printed
        from ..runtime.device import require_device

        require_device(device)
    from ..reports.compare import comparison_dict
    from ..reports.render import render
    shapes = None
    if shape_specs:
        from ..runtime.inputs import parse_shapes

        shapes = parse_shapes(shape_specs)
    analysis = api.analysis(model, config_spec, shapes)
    if html_path is not None:  # written first: a failure leaves no output behind
        from ..reports.html import report_html
        from ..reports.svg import write_document

        write_document(html_path, report_html(analysis), "--html")
    if layer_name is not None:
        if svg_path is not None:  # written first: a failure leaves no output behind
            from ..reports.svg import write_layer_svg

            write_layer_svg(analysis, layer_name, svg_path)
        _show_layer(analysis, layer_name)
    elif fmt == "json":
        import json

        doc = analysis.report.to_dict()
        if device is not None:
            doc["runtime"] = comparison_dict(_runtime(analysis, model, device)[1], device)
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(render(analysis.report, fmt), nl=False)
    if device is not None and (fmt != "json" or layer_name is not None):
        _print_runtime(analysis, model, device)
    share = analysis.report.summary.low_precision_share
    if fail_under is not None and share < fail_under:
        click.echo(f"lpt: low-precision share {share:.2f}% is below --fail-under {fail_under:g}%", err=True)
        click.get_current_context().exit(3)


def _show_layer(analysis: Analysis, name: str) -> None:
    from ..reports.chain import chain_lines, require_layer

    require_layer(analysis.before, name)
    row = next((r for r in analysis.report.layers if r.name == name), None)
    if row is None:
        click.echo(f"{name}: not a layer the report covers (a parameter, result or constant subgraph)")
    else:
        reason = f" — {row.reason.code}: {row.reason.detail}" if row.reason else ""
        click.echo(f"{row.name} ({row.type}): {row.status}{reason}")
    click.echo("before LPT:")
    click.echo("\n".join(chain_lines(analysis.before, name)))
    click.echo("after LPT:")
    click.echo("\n".join(chain_lines(analysis.after, (row.transformed_name if row else None) or name)))


def _runtime(analysis: Analysis, model: Path, device: str) -> tuple[tuple[Profile, Profile], list[Comparison]]:
    """Profiles of the original and the transformed model on `device`, and the per-layer comparison."""
    import tempfile

    from ..reports.analyze import write_runtime_model
    from ..reports.compare import compare
    from ..runtime.device import require_device
    from ..runtime.profile import profile_model

    require_device(device)
    with tempfile.TemporaryDirectory(prefix="lpt-report-") as tmp:
        lpt_xml = write_runtime_model(analysis, tmp, model)
        original = profile_model(model, device)
        transformed = profile_model(lpt_xml, device)
    rows = compare(analysis.report, analysis.after, _observed(transformed), _observed(original))
    return (original, transformed), rows


def _print_runtime(analysis: Analysis, model: Path, device: str) -> None:
    from ..reports.compare import format_comparison

    (original, transformed), rows = _runtime(analysis, model, device)
    click.echo(f"\nperformance counters, original model on {device}:")
    click.echo(original.perf_text, nl=False)
    click.echo(f"\nperformance counters, lpt-transformed model on {device}:")
    click.echo(transformed.perf_text, nl=False)
    click.echo("\nstatic prediction vs runtime precision:")
    click.echo(format_comparison(rows), nl=False)


def _observed(profile: Profile) -> dict[str, Observed]:
    from ..reports.compare import Observed
    from ..runtime.layers import describe, ran_low

    return {name: Observed(describe(layer), ran_low(layer, name, own), layer.name, own, layer.layer_type)
            for name, (layer, own) in profile.layers.items()}
