"""Markup attributes rendered as rt_info strings, and written through the IR writer's hook."""
from __future__ import annotations

import numpy as np
from lxml import etree

from lpt_cli.ir import Graph
from lpt_cli.ir.eltypes import i8, u8
from lpt_cli.ir.writer import write_ir
from lpt_cli.lpt.dequantization import attributes as attr
from lpt_cli.reports.rt_info import markup_rt_info


def relu_graph() -> Graph:
    g = Graph("m")
    x = g.add_node("Parameter", outputs=[("f32", (1, 3))], name="x").outputs[0]
    relu = g.add_node("Relu", [x], outputs=[("f32", (1, 3))], name="relu")
    g.add_node("Result", [relu.outputs[0]], name="out")
    return g


def test_values_are_short_openvino_like_strings():
    node = relu_graph().find("relu")
    node.annotations[attr.PRECISIONS] = attr.PrecisionsAttribute([u8, i8])
    node.annotations[attr.PRECISION_PRESERVED] = attr.PrecisionPreservedAttribute(True)
    node.annotations[attr.INTERVALS_ALIGNMENT] = attr.IntervalsAlignmentAttribute(
        attr.IntervalsAlignment((0.0, 2.55), (0.0, 1.0), 256, {u8}), 256)
    node.inputs[0].annotations[attr.QUANTIZATION_GRANULARITY] = attr.PER_TENSOR
    assert markup_rt_info(node) == {
        "LowPrecision::Precisions": "u8,i8",
        "LowPrecision::PrecisionPreserved": "true",
        "LowPrecision::IntervalsAlignment": "levels: 256, combined: {0, 2.55}, min: {0, 1}, minLevels: 256, "
                                            "preferablePrecisions: {u8}",
    }
    assert markup_rt_info(node.inputs[0]) == {"LowPrecision::QuantizationGranularity": "PerTensor"}
    assert markup_rt_info(node.outputs[0]) == {}


def test_shared_value_shows_the_current_value():
    a, b = attr.PrecisionsAttribute([u8, i8]), attr.PrecisionsAttribute([u8])
    a.share_into(b)
    node = relu_graph().find("relu")
    node.annotations[attr.PRECISIONS] = a
    assert markup_rt_info(node)["LowPrecision::Precisions"] == "u8"


def test_writer_hook_adds_attributes_to_layers_and_ports(tmp_path):
    g = relu_graph()
    relu = g.find("relu")
    relu.annotations[attr.BIAS] = True
    relu.inputs[0].annotations[attr.PRECISIONS] = attr.PrecisionsAttribute([u8])
    g.add_constant(np.float32(1.0))  # a layer the hook has nothing for
    write_ir(g, tmp_path / "m.xml", dialect="lowp", rt_info=markup_rt_info)
    layer = etree.parse(str(tmp_path / "m.xml")).find(".//layer[@name='relu']")
    assert layer.find("rt_info/attribute").attrib == {"name": "LowPrecision::Bias", "version": "0", "value": "true"}
    port = layer.find("input/port")
    assert port.find("rt_info/attribute").get("value") == "u8"
    assert layer.find("output/port/rt_info") is None
