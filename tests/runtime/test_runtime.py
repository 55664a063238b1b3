"""Compile, inputs, inference, per-layer runtime precision and perf counters on a tiny model."""
from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset13 as ov_ops
import pytest

import tiny_models
from lpt_cli.errors import LptError
from lpt_cli.runtime import bench
from lpt_cli.runtime.compile import compile_model, inference_precision
from lpt_cli.runtime.inputs import infer, input_shapes, load_inputs, parse_shapes, random_inputs
from lpt_cli.reports.compare import Counters
from lpt_cli.runtime.layers import PERF_HEADER, by_original_name, perf_cells, perf_counters, runtime_layers


@pytest.fixture(scope="module")
def conv_xml(tmp_path_factory):
    return tiny_models.conv(tmp_path_factory.mktemp("tiny"))


def test_precision_is_pinned_to_f32(conv_xml):
    assert inference_precision(compile_model(conv_xml)) == "f32"


def test_unknown_hint_and_broken_model_are_lpt_errors(conv_xml, tmp_path):
    with pytest.raises(LptError, match="precision-hint"):
        compile_model(conv_xml, precision_hint="int4")
    broken = tmp_path / "broken.xml"
    broken.write_text("<net")
    with pytest.raises(LptError, match="cannot compile") as err:
        compile_model(broken)
    assert "\n" not in str(err.value)


def test_runtime_precision_per_layer(conv_xml):
    layers = by_original_name(runtime_layers(compile_model(conv_xml)))
    conv, own = layers["conv"]
    assert own and conv.computes_low and conv.primitive.upper().endswith("_I8")
    softmax, _ = layers["softmax"]
    assert not softmax.computes_low and not softmax.outputs_low and softmax.float_input
    assert layers["relu"] == (conv, False)  # fused into the INT8 convolution


def test_perf_counters(conv_xml):
    compiled = compile_model(conv_xml, perf_count=True)
    request = compiled.create_infer_request()
    request.infer(random_inputs(compiled, 0))
    rows = {r.layer: r for r in perf_counters(request)}
    assert rows["conv"].status == "EXECUTED" and rows["conv"].exec_type.upper().endswith("_I8")
    counters = Counters((PERF_HEADER, *(perf_cells(r) for r in rows.values())))
    assert counters.rows[0][:4] == ("layerName", "execStatus", "layerType", "execType")
    assert counters.total.startswith("Total time:") and counters.total.endswith("ms (cpu)")


def test_random_inputs_are_seeded_and_dynamic_dims_become_one(tmp_path):
    compiled = compile_model(tiny_models.dynamic_relu(tmp_path))
    assert input_shapes(compiled)[0][1] == (1, 4)
    a, b = random_inputs(compiled, 7)[0], random_inputs(compiled, 7)[0]
    assert a.shape == (1, 4) and np.array_equal(a, b)
    assert not np.array_equal(a, random_inputs(compiled, 8)[0])


def test_inputs_from_npz_by_name_or_position(conv_xml, tmp_path):
    compiled = compile_model(conv_xml)
    x = np.full((1, 3, 16, 16), 0.5, np.float32)
    np.savez(tmp_path / "named.npz", input=x)
    np.savez(tmp_path / "positional.npz", x)
    for name in ("named.npz", "positional.npz"):
        assert np.array_equal(load_inputs(tmp_path / name, compiled)[0], x)
    np.savez(tmp_path / "wrong.npz", other=x)
    with pytest.raises(LptError, match="no array for input 0 'input'"):
        load_inputs(tmp_path / "wrong.npz", compiled)
    out = infer(compiled, [x])[0]
    assert out.shape == (1, 8, 16, 16) and np.allclose(out.sum(axis=1), 1.0, atol=1e-5)


def test_models_are_measured_round_robin(conv_xml):
    first, second = compile_model(conv_xml), compile_model(conv_xml)
    turns, ticks = [], []
    original_run_for = bench._Runner.run_for

    def recorded(self, seconds):
        turns.append(self)
        original_run_for(self, seconds)

    bench._Runner.run_for = recorded
    try:
        measured = bench.measure({"a": first, "b": second}, random_inputs(first, 0), 0.3, tick=ticks.append,
                                 slice_seconds=0.1)
    finally:
        bench._Runner.run_for = original_run_for
    assert not measured.interrupted and set(measured.results) == {"a", "b"}
    assert len(turns) >= 4 and all(turns[i] is not turns[i + 1] for i in range(len(turns) - 1))  # alternating
    assert ticks[-1] == 1.0
    for result in measured.results.values():
        assert result.seconds >= 0.3 and result.throughput == pytest.approx(result.iterations / result.seconds)
        assert 0 < result.min_ms <= result.median_ci_ms[0] <= result.median_ms <= result.median_ci_ms[1]
        assert result.median_ms <= result.p90_ms


def test_spread_statistics_of_known_latencies():
    r = bench.summarize([float(v) for v in range(1, 101)], 2.0)
    assert (r.iterations, r.throughput, r.min_ms, r.median_ms) == (100, 50.0, 1.0, 50.5)
    assert r.p90_ms == pytest.approx(90.1)
    assert r.median_ci_ms == (41.0, 61.0)  # order statistics 50 -+ 1.96 * sqrt(100) / 2
    assert bench.summarize([3.0, 1.0, 2.0], 1.0).median_ci_ms == (1.0, 3.0)  # too few: the range


def _dynamic_image(folder):
    x = ov_ops.parameter(ov.PartialShape([-1, 3, -1, -1]), np.float32, name="x")
    mask = ov_ops.parameter(ov.PartialShape([-1, -1]), np.int64, name="attention_mask")
    model = ov.Model([ov_ops.relu(x), ov_ops.convert(mask, np.float32)], [x, mask], "dyn_image")
    ov.save_model(model, folder / "dyn_image.xml")
    return compile_model(folder / "dyn_image.xml")


def test_dynamic_dimensions_get_documented_defaults_and_a_note(tmp_path):
    compiled = _dynamic_image(tmp_path)
    notes: list[str] = []
    image, mask = random_inputs(compiled, 0, None, notes)
    assert image.shape == (1, 3, 224, 224) and mask.shape == (1, 128)
    assert mask[0, :96].all() and not mask[0, 96:].any()  # a padded attention mask
    assert len(notes) == 2 and "give --shape x=" in notes[0]


def test_shape_option_sets_inputs_and_bad_values_are_errors(tmp_path):
    compiled = _dynamic_image(tmp_path)
    shapes = parse_shapes(("x=2,3,32,48", "attention_mask=2,7"))
    assert [s for _, s, _ in input_shapes(compiled, shapes)] == [(2, 3, 32, 48), (2, 7)]
    for bad in ("x=1,3,a,4", "x=0,3,4,4", "x=", "nope"):
        with pytest.raises(LptError, match="--shape"):
            input_shapes(compiled, parse_shapes((bad,)))
    with pytest.raises(LptError, match="the model input is"):
        input_shapes(compiled, parse_shapes(("x=1,4,8,8",)))
    with pytest.raises(LptError, match="no such input"):
        input_shapes(compiled, parse_shapes(("y=1,3,8,8",)))
