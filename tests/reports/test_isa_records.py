"""`lpt report --config cpu-amx` against what the CPU plugin ran on an AMX Xeon, on any machine.

The records (tests/data/isa-records/cpu-amx, see its README) are runtime models of the fixtures
and the zoo as compiled there. A layer ran INT8 when its own kernel is u8/i8 on an `_I8`/`_i8`
primitive, or when it sits in a snippets Subgraph with its dequantization (lpt_cli/isa.py, rule
subgraph_precision); the report must predict exactly those, with the kernel's u8/i8 activations
(runtime/parity.py, judge_prediction). For the fixtures the records are of these very files.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from lpt_cli.lpt.engine.config import load_config
from lpt_cli.lpt.engine.layer_checks import is_constant_path
from lpt_cli.reports.analyze import analyze
from lpt_cli.reports.model import LOW
from lpt_cli.reports.topology import WEIGHTABLE
from lpt_cli.runtime import parity
from lpt_cli.runtime.layers import RuntimeLayer

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "data" / "isa-records" / "cpu-amx"
FIXTURES = sorted(path.stem for path in (RECORDS / "runtime-fixtures").glob("*.json"))
ZOO = sorted(path.stem for path in (RECORDS / "runtime").glob("*.json"))


def _record(path: Path) -> tuple[dict[str, Any], list[RuntimeLayer]]:
    doc = json.loads(path.read_text())
    layers = [RuntimeLayer(op["name"], op["layerType"], op["runtimePrecision"], (), op["primitiveType"],
                           tuple(n for n in op["originalLayersNames"].split(",") if n)) for op in doc["runtime"]]
    return doc, layers


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def judge(xml: Path, layers: list[RuntimeLayer], profile: str) -> list[str]:
    """Where `lpt report --config PROFILE --format json` on `xml` disagrees with the runtime `layers`."""
    analysis = analyze(xml, load_config(profile))
    doc = analysis.report.to_dict()  # the JSON document `lpt report --format json` prints
    low = {row["name"]: row["input_precisions"][0] for row in doc["layers"]
           if row["type"] in WEIGHTABLE and row["status"] == LOW}
    weightable = {node.name for node in analysis.before if node.type in WEIGHTABLE}
    carrying = {node.name for node in analysis.before if node.type in WEIGHTABLE and is_constant_path(node.input_node(1))}
    truth = parity.read_int8(layers, weightable, parity.fused_multiply_aliases(analysis.after),
                             parity.unreported_kernel_layers(analysis.before))
    return parity.judge_prediction(truth, low, carrying)


@pytest.mark.parametrize("name", FIXTURES)
def test_cpu_amx_reports_what_the_plugin_ran_on_amx(name: str) -> None:
    doc, layers = _record(RECORDS / "runtime-fixtures" / f"{name}.json")
    xml = ROOT / "fixtures" / "models" / f"{name}.xml"
    assert {".xml": _md5(xml), ".bin": _md5(xml.with_suffix(".bin"))} == doc["md5"], "not the recorded files"
    assert judge(xml, layers, "cpu-amx") == []


def test_the_transformer_ran_14_weightable_layers_in_int8_on_amx() -> None:
    """Not 16: both attention Subgraphs report i8 (their narrowest input), but the second MatMul
    of each, context_29 and context_89, multiplies f32 softmax by f32 values."""
    _, layers = _record(RECORDS / "runtime-fixtures" / "transformer.json")
    xml = ROOT / "fixtures" / "models" / "transformer.xml"
    analysis = analyze(xml, load_config("cpu-amx"))
    weightable = {node.name for node in analysis.before if node.type in WEIGHTABLE}
    truth = parity.read_int8(layers, weightable, parity.fused_multiply_aliases(analysis.after))
    assert len(truth.int8) == 14 and {"scores_25", "scores_85"} <= truth.int8
    assert truth.opaque == {"context_29", "context_89"}
    assert analysis.report.summary.weightable_low_precision == 14


@pytest.mark.parametrize("name", ["resnet", "mobilenet", "detection", "decoder"])
def test_the_records_tell_cpu_amx_from_cpu_avx2(name: str) -> None:
    """AMX runs signed activations on Convolution (transformation_pipeline.cpp, Transformations::Lpt):
    the AVX2 profile's u8 prediction for those layers does not match the AMX plugin."""
    _, layers = _record(RECORDS / "runtime-fixtures" / f"{name}.json")
    problems = judge(ROOT / "fixtures" / "models" / f"{name}.xml", layers, "cpu-avx2")
    assert problems and "other activations than the kernel's" in problems[0]


def _zoo_model(name: str) -> Path:
    from fixtures import zoo

    xml = zoo.DEFAULT_DIR / f"{name}.xml"
    if zoo.sidecar(zoo.DEFAULT_DIR, name) is None:
        pytest.skip(f"the zoo model {name} is not built in {zoo.DEFAULT_DIR} (tests/zoo build it)")
    return xml


@pytest.mark.slow
@pytest.mark.zoo
@pytest.mark.parametrize("name", ZOO)
def test_cpu_amx_reports_what_the_plugin_ran_on_amx_for_the_zoo(name: str) -> None:
    """The zoo as built here differs in bytes from the recorded builds, and OpenVINO numbers its
    generated names differently: those layers are compared by count and activation precision."""
    _, layers = _record(RECORDS / "runtime" / f"{name}.json")
    assert judge(_zoo_model(name), layers, "cpu-amx") == []
