"""Issues 3 and 4, "real models": on every checked-in fixture, lpt's CPU result is as INT8 as
OpenVINO's own LPT and computes the same numbers.

The reference is the original (FakeQuantize) model compiled by the CPU plugin, which runs
OpenVINO's LPT itself. The plugin renames layers it rebuilds (a Convolution may run as
`Multiply_5472`), so weightable runtime ops are matched by (layer type, input shapes), not by name.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from lpt_cli.ir import Graph, Node
from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.lpt.engine.pipeline import run_pipeline

ov = pytest.importorskip("openvino")

from lpt_cli.runtime.compile import compile_model  # noqa: E402  (needs openvino)
from lpt_cli.runtime.inputs import infer, random_inputs  # noqa: E402
from lpt_cli.runtime.layers import runtime_layers  # noqa: E402

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"
FIXTURES = sorted(p.stem for p in MODELS.glob("*.xml") if not p.stem.endswith("_fp32"))
WEIGHTABLE = frozenset({"Convolution", "GroupConvolution", "ConvolutionBackpropData", "MatMul"})
# Runtime (CPU plugin) layer types a weightable IR op runs as.
RUNTIME_WEIGHTABLE = frozenset({"Convolution", "Deconvolution", "FullyConnected", "MatMul", "GroupConvolution"})
INTEGER = frozenset({"u8", "i8"})
RTOL = 1e-3


def _transform(model: Path, out: Path, dialect: str) -> Path:
    graph = read_ir(model)
    run_pipeline(graph, load_config("cpu"))
    write_ir(graph, out, dialect=dialect)
    return out


def _int8_weightable(compiled: "ov.CompiledModel") -> Counter[tuple[str, tuple[tuple[int, ...], ...]]]:
    """(runtime layer type, data and weights shapes) of every weightable runtime op computing in u8/i8
    (fused post-op inputs differ between the two models, so they are left out)."""
    shapes = {op.get_friendly_name(): tuple(tuple(int(d) for d in op.get_input_shape(i))
                                            for i in range(min(2, op.get_input_size())))
              for op in compiled.get_runtime_model().get_ordered_ops()}
    return Counter((layer.layer_type, shapes[layer.name]) for layer in runtime_layers(compiled)
                   if layer.layer_type in RUNTIME_WEIGHTABLE and layer.runtime_precision.lower() in INTEGER)


def _integer_fed(node: Node, index: int) -> bool:
    """The input is u8/i8, directly or through LPT's zero-point Subtract on u8/i8 values."""
    source = node.inputs[index].source
    if source.element_type.name in INTEGER:
        return True
    sub = source.node
    return sub.type == "Subtract" and all(s.source.element_type.name in INTEGER for s in sub.inputs)


def _low_precision_layers(graph: Graph) -> list[str]:
    return [n.name for n in graph if n.type in WEIGHTABLE and _integer_fed(n, 0) and _integer_fed(n, 1)]


@pytest.fixture(scope="module")
def compiled_pairs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[object, object]]:
    """fixture name -> (original compiled, lpt runtime-dialect compiled), built once."""
    out = tmp_path_factory.mktemp("real_models")
    return {name: (compile_model(MODELS / f"{name}.xml"),
                   compile_model(_transform(MODELS / f"{name}.xml", out / f"{name}_lpt.xml", "runtime")))
            for name in FIXTURES}


def test_every_fixture_is_covered() -> None:
    assert set(FIXTURES) == {"resnet", "mobilenet", "transformer", "detection", "decoder"}


@pytest.mark.parametrize("name", FIXTURES)
def test_int8_layers_of_the_original_stay_int8(name: str, compiled_pairs: dict) -> None:
    original, ours = compiled_pairs[name]
    expected = _int8_weightable(original)
    assert expected, "the original runs no weightable layer in INT8: the fixture tests nothing"
    missing = expected - _int8_weightable(ours)
    assert not missing, f"run in INT8 by the original but not by lpt's model: {dict(missing)}"


@pytest.mark.parametrize("name", FIXTURES)
def test_outputs_match_the_original(name: str, compiled_pairs: dict) -> None:
    """Every output within 1e-3 of the original, relative to the output's largest magnitude."""
    original, ours = compiled_pairs[name]
    inputs = random_inputs(original, seed=0)
    for ref, got in zip(infer(original, inputs), infer(ours, inputs)):
        scale = float(np.abs(ref).max()) or 1.0
        error = float(np.abs(got.astype(np.float64) - ref).max()) / scale
        assert error <= RTOL, f"max |lpt - original| / max |original| = {error:.3g}"


@pytest.mark.parametrize("name", FIXTURES)
def test_lowp_weightable_layers_take_integers(name: str, compiled_pairs: dict, tmp_path: Path) -> None:
    """As many weightable layers take u8/i8 in the lowp dialect as the plugin runs in INT8."""
    original, _ = compiled_pairs[name]
    lowp = read_ir(_transform(MODELS / f"{name}.xml", tmp_path / f"{name}_lowp.xml", "lowp"))
    assert len(_low_precision_layers(lowp)) >= sum(_int8_weightable(original).values())
