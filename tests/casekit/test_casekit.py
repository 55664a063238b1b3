"""Self-tests of the case kit: it must accept every case, and its checks must be able to fail."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
import yaml

from lpt_cli.ir.graph import Graph, Output

from casekit import compare, dsl, yamlio
from casekit.dsl import Case

CASE_IDS = dsl.case_ids()


@lru_cache(maxsize=None)
def _case(case_id: str) -> Case:
    return dsl.load_case(case_id)


def _signature(graph: Graph) -> tuple:
    """An exact, name-free fingerprint (no tolerance, no defaults) to tell graphs apart."""
    memo: dict[int, tuple] = {}

    def walk(out: Output) -> tuple:
        if id(out) not in memo:
            node = out.node
            own = ((node.value.shape, node.value.tolist()) if node.type == "Constant"
                   else out.shape if node.type == "Parameter" else tuple(sorted(node.attrs.items())))
            memo[id(out)] = (node.type, node.version, out.index, out.element_type.name, own,
                             tuple(walk(v) for v in node.input_values()))
        return memo[id(out)]

    return tuple(walk(result.input_value(0)) for result in graph.results)


def test_all_528_cases_load() -> None:
    assert len(CASE_IDS) == 528 and len(set(CASE_IDS)) == 528
    for case_id in CASE_IDS:
        case = _case(case_id)
        assert case.input.results and case.expected.results, case_id
        for node in case.input:
            assert all(out.shape is not None for out in node.outputs), (case_id, node)


def test_loaded_graph_is_what_the_file_says() -> None:
    case = _case("weightable/convolution_transformation::u8_with_zero_point_asymmetric")
    conv = case.input.find("convolution")
    assert conv.attrs["strides"] == "1, 1" and conv.attrs["auto_pad"] == "explicit"
    assert conv.output().shape == (1, 6, 72, 48) and conv.output().element_type.name == "f32"
    assert conv.input_node(1).attrs["levels"] == "255"
    param = case.input.find("input")
    assert param.output().element_type.name == "u8" and param.attrs["shape"] == "1,3,72,48"
    subtract = case.expected.find("input_deq_subtract")
    assert subtract.output().element_type.name == "f32"
    assert subtract.input_node(1).value.shape == (1, 3, 1, 1) and subtract.input_node(1).value.dtype == np.uint8


def test_case_ids_name_every_loaded_case_in_order() -> None:
    loaded = [f"{path.parent.name}/{path.stem}::{raw['name']}"
              for path in dsl.case_files() for raw in yamlio.load_yaml(path)["cases"]]
    assert list(CASE_IDS) == loaded


def test_case_names_reads_only_the_top_level_cases(tmp_path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text("name: file\nsource: x\ncases:\n"
                    "- {note: n, name: first, input: {nodes: [{name: inner}]}}\n"
                    "- config: {name: not_a_case}\n  name: 'second'\n  expected: [[name], {name: deep}]\n"
                    "other: [{name: elsewhere}]\n")
    assert yamlio.case_names(path) == ["first", "second"]


def test_yaml_is_strict_and_reads_yaml12_floats(tmp_path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("a: 1e-5\nb: 2\n")
    assert yamlio.load_yaml(good) == {"a": 1e-5, "b": 2}
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: 1\na: 2\n")
    with pytest.raises(yaml.YAMLError, match="duplicate key"):
        yamlio.load_yaml(bad)


def test_every_expected_graph_matches_itself() -> None:
    for case_id in CASE_IDS:
        assert compare.compare(_case(case_id).expected, _case(case_id).expected) is None, case_id


def test_input_matches_expected_exactly_when_the_case_changes_nothing() -> None:
    differing = 0
    for case_id in CASE_IDS:
        case = _case(case_id)
        mismatch = compare.compare(case.input, case.expected)
        if _signature(case.input) != _signature(case.expected):
            differing += 1
            assert mismatch is not None and mismatch.startswith("output "), case_id
        else:
            assert mismatch is None, (case_id, mismatch)
    assert differing > 350  # most cases transform something


def _deq_graph(scale: list[float], strides: str = "1, 1") -> Graph:
    graph = Graph()
    param = graph.add_node("Parameter", outputs=[("u8", (1, 2, 4, 4))], name="x")
    convert = graph.add_node("Convert", [param.output()], outputs=[("f32", (1, 2, 4, 4))],
                             attrs={"destination_type": "f32"})
    value = np.array(scale, np.float32).reshape(1, -1, 1, 1) if len(scale) > 1 else np.float32(scale[0])
    const = graph.add_constant(value)
    mul = graph.add_node("Multiply", [convert.output(), const.output()], outputs=[("f32", (1, 2, 4, 4))],
                         name="mul")
    pool = graph.add_node("MaxPool", [mul.output()], outputs=[("f32", (1, 2, 4, 4))],
                          attrs={"strides": strides, "kernel": "1,1", "pads_begin": "0,0", "pads_end": "0,0"})
    graph.add_node("Result", [pool.output()])
    return graph


def test_compare_reports_the_path_to_a_differing_constant() -> None:
    why = compare.compare(_deq_graph([0.5, 0.25]), _deq_graph([0.5, 0.3]))
    assert why is not None
    assert why.startswith("output 0 -> MaxPool ") and " input 0 -> Multiply " in why
    assert " input 1 -> Constant " in why and "values differ" in why


def test_compare_normalizes_attributes_and_constant_shapes() -> None:
    assert compare.compare(_deq_graph([0.5], strides="1,1"), _deq_graph([0.5], strides="1, 1")) is None
    assert "attribute 'strides' differs" in compare.compare(_deq_graph([0.5], "2,2"), _deq_graph([0.5]))
    expected = _deq_graph([0.5])
    expected.find("mul").attrs["auto_broadcast"] = "numpy"  # a spec default the actual omits
    assert compare.compare(_deq_graph([0.5]), expected) is None
    assert compare.compare(_deq_graph([0.5, 0.5]), _deq_graph([0.5])) is not None  # [2] vs scalar


def test_compare_checks_element_types() -> None:
    actual = _deq_graph([0.5])
    actual.find("mul").output().element_type = actual.find("x").output().element_type
    assert "element type differs: expected f32, actual u8" in compare.compare(actual, _deq_graph([0.5]))


@pytest.mark.slow
@pytest.mark.parametrize("case_id", CASE_IDS)
def test_input_and_expected_agree_numerically(case_id: str) -> None:
    from casekit.numerics import compare_numerics

    case = _case(case_id)
    if "skip" in case.numerics:
        pytest.skip(f"numerics: skip ({case.numerics['skip']})")
    assert compare_numerics(case.input, case.expected, shapes=case.numerics.get("shapes")) is None


@pytest.mark.slow
def test_numerics_catches_a_wrong_scale() -> None:
    from casekit.numerics import compare_numerics

    case = dsl.load_case("weightable/convolution_transformation::u8_with_zero_point_asymmetric")
    scale = next(n for n in case.expected if n.type == "Constant" and n.value.dtype == np.float32
                 and n.output().consumer_nodes()[0].type == "Multiply")
    scale.data = type(scale.data).from_array(scale.value * 1.5, scale.output().element_type)
    why = compare_numerics(case.input, case.expected)
    assert why is not None and why.startswith("output 0: max|A-B|")


def _stateful_graph(assigned: str) -> Graph:
    """x + state; the Assign stores `assigned` ("sum" or "x")."""
    graph = Graph()
    x = graph.add_node("Parameter", outputs=[("f32", (1, 4))], name="x")
    initial = graph.add_constant(np.zeros((1, 4), np.float32))
    read = graph.add_node("ReadValue", [initial.output()], outputs=[("f32", (1, 4))], version="opset6",
                          attrs={"variable_id": "s", "variable_type": "f32", "variable_shape": "1,4"})
    total = graph.add_node("Add", [x.output(), read.output()], outputs=[("f32", (1, 4))], name="sum")
    graph.add_node("Assign", [graph.find(assigned).output()], outputs=[("f32", (1, 4))], version="opset6",
                   attrs={"variable_id": "s"})
    graph.add_node("Result", [total.output()])
    return graph


def test_compare_walks_the_assign_ops_too() -> None:
    assert compare.compare(_stateful_graph("sum"), _stateful_graph("sum")) is None
    why = compare.compare(_stateful_graph("x"), _stateful_graph("sum"))
    assert why is not None and why.startswith("Assign ") and "op differs" in why
