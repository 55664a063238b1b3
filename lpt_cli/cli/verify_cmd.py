"""`lpt verify`: the transformed model computes what the original computes, up to the plugin's own rounding."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..runtime import PRECISION_HINTS
from .options import config_option, debug_option
from .paths import check_input_file, check_model

if TYPE_CHECKING:
    from ..runtime.compare_outputs import OutputVerdict

EPILOG = """\b
Examples:
  lpt verify model.xml                      # cpu profile, random inputs
  lpt verify model.xml --config gpu --shape input_ids=1,128
  lpt verify model.xml --inputs samples.npz # your inputs, one array a name
  lpt verify bert.xml --shape input_ids=1,128 --shape attention_mask=1,128

\b
Verdict per output (errors: max|difference| / max|output|, the range):
  same as the original     within --atol/--rtol of the original
  same as the plugin's own rounding
                           no further from the exact FakeQuantize math
                           (each FakeQuantize as float ops: the plugin
                           runs no LPT on it) than 2x the plugin's own
                           LPT: rounding, not a change
  lpt changed the model    further than that

\b
Exit codes:
  0    every output is the same as the original or the plugin's own
       rounding
  1    internal error (a bug in lpt)
  2    bad input: unreadable model, config or --inputs file; the model does
       not compile
  3    lpt changed the model: an output is further from the exact
       FakeQuantize math than the plugin's own rounding (the same code as
       `lpt report --fail-under`)
  130  interrupted (Ctrl-C)
"""


@click.command("verify", epilog=EPILOG,
               short_help="Run MODEL and its LPT-transformed version on the same inputs and compare the outputs.")
@click.argument("model", type=click.Path(path_type=Path))
@config_option()
@click.option("--inputs", "inputs_path", type=click.Path(path_type=Path),
              help="An .npz with one array per model input (by input name, else arr_0, arr_1, ...).")
@click.option("--shape", "shape_specs", multiple=True, metavar="NAME=D,D,...",
              help="Shape of an input with dynamic dimensions, as benchmark_app -shape (repeatable; "
                   "a bare 1,3,224,224 for a one-input model). Default for dynamic dimensions: batch 1, "
                   "224x224 images, sequences of 128.")
@click.option("--atol", type=click.FloatRange(min=0), default=1e-2, show_default=True,
              help="With --rtol: an output within atol + rtol * |original| everywhere is the same as the original.")
@click.option("--rtol", type=click.FloatRange(min=0), default=1e-2, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random inputs.")
@click.option("-d", "--device", default="CPU", show_default=True)
@click.option("--precision-hint", type=click.Choice(PRECISION_HINTS), default="f32", show_default=True,
              help="INFERENCE_PRECISION_HINT for both models.")
@debug_option
def verify(model: Path, config_spec: str, inputs_path: Path | None, shape_specs: tuple[str, ...], atol: float,
           rtol: float, seed: int, device: str, precision_hint: str) -> None:
    """Run MODEL and its LPT-transformed version on the same inputs and compare the outputs.

    Both are also compared with the exact FakeQuantize math (the model with every FakeQuantize
    as float ops, which the plugin runs without LPT), so the verdict tells lpt's rounding,
    the same size as the plugin's own, from a change of the model.

    Inputs are seeded random tensors shaped after the model unless --inputs is given. Dynamic
    dimensions take --shape, else batch 1, 224x224 for images and 128 for sequences (said on
    stderr); integer inputs named like a mask get a padded mask (ones, then zeros).
    """
    from ..api import verify as run_verify  # imported here: `lpt --help` loads no command's stack
    from ..runtime.inputs import parse_shapes

    check_model(model)
    if inputs_path is not None:
        check_input_file(inputs_path, "an .npz file")
    done = run_verify(model, config_spec, inputs=inputs_path, shape=parse_shapes(shape_specs), atol=atol, rtol=rtol,
                      seed=seed, device=device, precision_hint=precision_hint)
    for note in done.notes:
        click.echo(f"lpt: note: {note}", err=True)
    verdicts = list(done.outputs)
    click.echo(f"original vs lpt-transformed on {device} (INFERENCE_PRECISION_HINT {precision_hint}), {done.inputs}")
    click.echo("errors: max|difference| / max|output| (the output's range); exact: each FakeQuantize as "
               "float math, run without LPT")
    click.echo("\n".join(_table(verdicts)))
    verdict, code = _verdict(verdicts, atol, rtol)
    click.echo(f"verdict: {verdict}")
    if code:
        click.get_current_context().exit(code)


def _table(verdicts: list[OutputVerdict]) -> list[str]:
    from ..runtime.compare_outputs import measure
    from ..text import table_lines, terminal_width

    rows: list[tuple[str, ...]] = [("output", "lpt vs original", "lpt vs exact", "plugin vs exact", "verdict")]
    rows += [(v.name, measure(v.error, v.absolute), measure(v.lpt_exact), measure(v.plugin_exact), v.verdict)
             for v in verdicts]
    return table_lines(rows, terminal_width(), right=frozenset({1, 2, 3}), names=frozenset({0}), whole=frozenset({4}))


def _verdict(verdicts: list[OutputVerdict], atol: float, rtol: float) -> tuple[str, int]:
    """The last line and the exit code: 3 when lpt changed an output beyond rounding."""
    from ..runtime.compare_outputs import CHANGED, PLUGIN_ROUNDING, ROUNDING, measure

    count = f"{len(verdicts)} outputs"
    changed = [v for v in verdicts if v.verdict == CHANGED]
    if changed:
        worst = max(changed, key=lambda v: v.lpt_exact)
        line = (f"{CHANGED}: output '{worst.name}' is {measure(worst.lpt_exact)} of its range from the exact "
                f"FakeQuantize math, the plugin's own LPT {measure(worst.plugin_exact)} (more than {ROUNDING:g}x; "
                f"{len(changed)} of {count} changed)")
        return line, 3
    rounded = [v for v in verdicts if v.verdict == PLUGIN_ROUNDING]
    if rounded:
        line = (f"{PLUGIN_ROUNDING}: {len(rounded)} of {count} differ from the original beyond atol={atol:g} "
                f"rtol={rtol:g}, but no further from the exact FakeQuantize math than the plugin's own LPT "
                f"(at most {ROUNDING:g}x): lpt did not change the model")
        return line, 0
    return f"same as the original: {len(verdicts)} of {count} within atol={atol:g} rtol={rtol:g}", 0
