"""read -> write (both dialects) -> OpenVINO computes exactly what the original computes."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from ir_models import conv_fq_model, exotic_constants_model, loop_model, random_inputs, run
from lpt_cli.ir.graph import Graph
from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir

BUILDERS = [conv_fq_model, exotic_constants_model, loop_model]


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("dialect", ["lowp", "runtime"])
def test_openvino_computes_identical_outputs(tmp_path: Path, build, dialect: str) -> None:
    original = build(tmp_path)
    out = tmp_path / f"out_{dialect}.xml"
    write_ir(read_ir(original), out, dialect=dialect)
    model = ov.Core().read_model(str(original))
    for seed in (0, 1):
        inputs = random_inputs(model, seed)
        for expected, actual in zip(run(original, inputs), run(out, inputs), strict=True):
            assert np.array_equal(expected, actual)


def test_names_order_and_model_rt_info_survive(tmp_path: Path) -> None:
    original = conv_fq_model(tmp_path)
    out = tmp_path / "out.xml"
    write_ir(read_ir(original), out, dialect="lowp")
    before, after = (ov.Core().read_model(str(p)) for p in (original, out))
    assert [i.get_names() for i in after.inputs] == [i.get_names() for i in before.inputs]
    assert [o.get_names() for o in after.outputs] == [o.get_names() for o in before.outputs]
    assert after.get_rt_info(["custom", "note"]).astype(str) == "test-value"


_PLACEMENT = ("offset", "size", "shape")  # where a Const's bytes sit; compared as bytes and shape


def _signature(graph: Graph) -> dict:
    nodes = {}
    for node in graph:
        attrs = {k: v for k, v in node.attrs.items() if not (node.is_constant and k in _PLACEMENT)}
        nodes[node.name] = (
            node.type, node.version, attrs,
            [(o.element_type.name, o.shape, o.names) for o in node.outputs],
            [(s.source.node.name, s.source.index) for s in node.inputs],
            bytes(node.data.raw_bytes()) if node.data is not None else None,
            len(node.xml_extra),
        )
    return {"nodes": nodes, "params": [n.name for n in graph.parameters],
            "results": [n.name for n in graph.results]}


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_lowp_reads_back_as_the_same_graph(tmp_path: Path, build) -> None:
    first = read_ir(build(tmp_path))
    write_ir(first, tmp_path / "a.xml", dialect="lowp")
    second = read_ir(tmp_path / "a.xml")
    assert _signature(second) == _signature(first)


def lowp_conv_graph() -> Graph:
    """What LPT leaves: FakeQuantize -> u8, Subtract(u8, u8 zp) -> f32, Convolution(f32, i8) -> f32."""
    g = Graph("lowp")
    x = g.add_node("Parameter", outputs=[("f32", (1, 4, 8, 8))], attrs={"shape": "1,4,8,8", "element_type": "f32"},
                   name="x")
    limits = [g.add_constant(np.float32(v)).outputs[0] for v in (0.0, 2.55, 0.0, 255.0)]
    fq = g.add_node("FakeQuantize", [x.outputs[0], *limits], outputs=[("u8", (1, 4, 8, 8))],
                    attrs={"levels": "256", "auto_broadcast": "numpy"}, name="fq")
    zp = g.add_constant(np.full((1, 4, 1, 1), 3, np.uint8), "u8", name="zp")
    sub = g.add_node("Subtract", [fq.outputs[0], zp.outputs[0]], outputs=[("f32", (1, 4, 8, 8))],
                     attrs={"auto_broadcast": "numpy"}, name="sub")
    w = g.add_constant((np.arange(288).reshape(8, 4, 3, 3) % 200) - 100, "i8", name="w")
    conv = g.add_node("Convolution", [sub.outputs[0], w.outputs[0]], outputs=[("f32", (1, 8, 6, 6))],
                      attrs={"strides": "1, 1", "dilations": "1, 1", "pads_begin": "0, 0", "pads_end": "0, 0",
                             "auto_pad": "explicit"}, name="conv")
    g.add_node("Result", [conv.outputs[0]], name="out")
    return g


def test_lowp_writes_type_relaxed_ports_and_reads_them_back(tmp_path: Path) -> None:
    write_ir(lowp_conv_graph(), tmp_path / "l.xml", dialect="lowp")
    text = (tmp_path / "l.xml").read_text()
    assert 'name="conv" type="Convolution"' in text
    back = read_ir(tmp_path / "l.xml")
    conv = back.find("conv")
    assert [s.source.element_type.name for s in conv.inputs] == ["f32", "i8"]
    assert conv.outputs[0].element_type.name == "f32"
    assert back.find("fq").outputs[0].element_type.name == "u8"
    sub = back.find("sub")
    assert [s.source.element_type.name for s in sub.inputs] == ["u8", "u8"]
    assert _signature(back) == _signature(lowp_conv_graph())


@pytest.mark.parametrize("dialect", ["lowp", "runtime"])
def test_port_and_layer_rt_info_survive(tmp_path: Path, dialect: str) -> None:
    from lxml import etree

    source = conv_fq_model(tmp_path)
    tree = etree.parse(str(source))
    layer = next(layer for layer in tree.iter("layer") if layer.get("type") == "Convolution")
    for holder in (layer, layer.find("input/port"), layer.find("output/port")):
        rt = holder.find("rt_info")
        if rt is None:
            rt = etree.SubElement(holder, "rt_info")
        etree.SubElement(rt, "attribute", name=f"mark_{holder.tag}", version="0", value="kept")
    tree.write(str(source))
    out = tmp_path / "out.xml"
    write_ir(read_ir(source), out, dialect=dialect)
    written = etree.parse(str(out))
    conv = next(layer for layer in written.iter("layer") if layer.get("type") == "Convolution")
    for path in ("rt_info", "input/port/rt_info", "output/port/rt_info"):
        names = {a.get("name") for a in conv.findall(f"{path}/attribute")}
        assert any(name.startswith("mark_") for name in names), path
