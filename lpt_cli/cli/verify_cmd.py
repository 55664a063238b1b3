"""`lpt verify`: the transformed model computes what the original computes, within tolerance."""
from __future__ import annotations

from pathlib import Path

import click

from ..runtime import PRECISION_HINTS
from .options import config_option, debug_option
from .paths import check_input_file, check_model

EPILOG = """\b
Examples:
  lpt verify model.xml                      # cpu profile, random inputs
  lpt verify model.xml --config gpu --atol 0.05 --rtol 0.05
  lpt verify model.xml --inputs samples.npz # your inputs, one array a name
  lpt verify bert.xml --shape input_ids=1,128 --shape attention_mask=1,128

\b
Exit codes:
  0    every output is within tolerance
       (|lpt - original| <= atol + rtol * |original|)
  1    internal error (a bug in lpt)
  2    bad input: unreadable model, config or --inputs file; the model does
       not compile
  3    some output is above tolerance (the same code as `lpt report
       --fail-under`)
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
@click.option("--atol", type=click.FloatRange(min=0), default=1e-2, show_default=True)
@click.option("--rtol", type=click.FloatRange(min=0), default=1e-2, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random inputs.")
@click.option("-d", "--device", default="CPU", show_default=True)
@click.option("--precision-hint", type=click.Choice(PRECISION_HINTS), default="f32", show_default=True,
              help="INFERENCE_PRECISION_HINT for both models.")
@debug_option
def verify(model: Path, config_spec: str, inputs_path: Path | None, shape_specs: tuple[str, ...], atol: float,
           rtol: float, seed: int, device: str, precision_hint: str) -> None:
    """Run MODEL and its LPT-transformed version on the same inputs and compare the outputs.

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
    errors = done.outputs
    click.echo(f"original vs lpt-transformed on {device} (INFERENCE_PRECISION_HINT {precision_hint}), {done.inputs}")
    for e in errors:
        verdict = "ok" if e.within else "FAIL"
        click.echo(f"{e.name}: max abs {e.max_abs:.6g}, max rel {e.max_rel:.6g}  {verdict}")
    failed = [e for e in errors if not e.within]
    click.echo(f"{len(errors) - len(failed)}/{len(errors)} outputs within atol={atol:g} rtol={rtol:g}")
    if failed:
        click.get_current_context().exit(3)
