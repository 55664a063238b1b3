"""`lpt verify`: the transformed model computes what the original computes, within tolerance."""
from __future__ import annotations

from pathlib import Path

import click

from ..errors import LptError
from ..runtime import PRECISION_HINTS
from .paths import check_input_file, check_model

EPILOG = """\b
Exit codes:
  0  every output is within tolerance (|lpt - original| <= atol + rtol * |original|)
  1  internal error (a bug in lpt)
  2  bad input: unreadable model, config or --inputs file; the model does not compile
  3  some output is above tolerance (the same code as `lpt report --fail-under`)
"""


@click.command("verify", epilog=EPILOG,
               short_help="Run MODEL and its LPT-transformed version on the same inputs and compare the outputs.")
@click.argument("model", type=click.Path(path_type=Path))
@click.option("--config", "config_spec", default="cpu", show_default=True,
              help="Built-in profile (default, cpu, a cpu-* profile, gpu, gpu-xmx: `lpt config list`) or a YAML config file.")
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
def verify(model: Path, config_spec: str, inputs_path: Path | None, shape_specs: tuple[str, ...], atol: float,
           rtol: float, seed: int, device: str, precision_hint: str) -> None:
    """Run MODEL and its LPT-transformed version on the same inputs and compare the outputs.

    Inputs are seeded random tensors shaped after the model unless --inputs is given. Dynamic
    dimensions take --shape, else batch 1, 224x224 for images and 128 for sequences (said on
    stderr); integer inputs named like a mask get a padded mask (ones, then zeros).
    """
    import tempfile

    from ..lpt.engine.config import load_config  # imported here: `lpt --help` loads no command's stack
    from ..reports.analyze import analyze, write_runtime_model
    from ..runtime.compare_outputs import output_errors
    from ..runtime.compile import compile_model
    from ..runtime.inputs import infer, load_inputs, parse_shapes, random_inputs

    check_model(model)
    if inputs_path is not None:
        check_input_file(inputs_path, "an .npz file")
    shapes = parse_shapes(shape_specs)
    analysis = analyze(model, load_config(config_spec))
    original = compile_model(model, device, precision_hint=precision_hint)
    notes: list[str] = []
    inputs = load_inputs(inputs_path, original) if inputs_path else random_inputs(original, seed, shapes, notes)
    for note in notes:
        click.echo(f"lpt: note: {note}", err=True)
    with tempfile.TemporaryDirectory(prefix="lpt-verify-") as tmp:
        transformed = compile_model(write_runtime_model(analysis, tmp, model), device, precision_hint=precision_hint)
        if len(transformed.outputs) != len(original.outputs):
            raise LptError(f"{model}: the transformed model has {len(transformed.outputs)} outputs, "
                           f"the original {len(original.outputs)}")
        names = [o.get_any_name() if o.get_names() else f"output{i}" for i, o in enumerate(original.outputs)]
        errors = output_errors(names, infer(original, inputs), infer(transformed, inputs), atol, rtol)
    source = f"inputs from {inputs_path}" if inputs_path else f"random inputs, seed {seed}"
    click.echo(f"original vs lpt-transformed on {device} (INFERENCE_PRECISION_HINT {precision_hint}), {source}")
    for e in errors:
        verdict = "ok" if e.within else "FAIL"
        click.echo(f"{e.name}: max abs {e.max_abs:.6g}, max rel {e.max_rel:.6g}  {verdict}")
    failed = [e for e in errors if not e.within]
    click.echo(f"{len(errors) - len(failed)}/{len(errors)} outputs within atol={atol:g} rtol={rtol:g}")
    if failed:
        click.get_current_context().exit(3)
