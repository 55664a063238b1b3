"""Reader details: shapes, dialect-independent opaque XML, IR v10, unknown ops."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops

from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir


def _save(model: ov.Model, path: Path) -> Path:
    ov.save_model(model, str(path), compress_to_fp16=False)
    return path


def test_dynamic_dims_ranges_and_rank(tmp_path: Path) -> None:
    x = ops.parameter(ov.PartialShape([ov.Dimension(1, 8), 3, -1]), np.float32, name="x")
    y = ops.parameter(ov.PartialShape.dynamic(), np.float32, name="y")
    s = ops.parameter([], np.float32, name="s")
    model = ov.Model([ops.relu(x).output(0), ops.relu(y).output(0), ops.relu(s).output(0)], [x, y, s], "dyn")
    graph = read_ir(_save(model, tmp_path / "dyn.xml"))
    assert [p.outputs[0].shape for p in graph.parameters] == [(-1, 3, -1), None, ()]
    relus = [r.input_node(0) for r in graph.results]
    assert [r.outputs[0].shape for r in relus] == [(-1, 3, -1), None, ()]
    write_ir(graph, tmp_path / "out.xml", dialect="lowp")
    again = ov.Core().read_model(str(tmp_path / "out.xml"))
    assert [str(i.get_partial_shape()) for i in again.inputs] == ["[1..8,3,?]", "[...]", "[]"]


def test_type_names_rt_info_and_layer_attributes_survive(tmp_path: Path) -> None:
    x = ops.parameter([1, 4], np.float32, name="x")
    x.set_layout(ov.Layout("NC"))
    prelu = ops.prelu(ops.relu(x), ops.constant(np.float32([0.1])))
    model = ov.Model([ops.softmax(prelu, 1).output(0)], [x], "names")
    original = _save(model, tmp_path / "n.xml")
    graph = read_ir(original)
    assert {"Relu", "PRelu", "Softmax", "Constant"} <= {n.type for n in graph}
    assert graph.parameters[0].outputs[0].xml_rt_info is not None  # the layout
    write_ir(graph, tmp_path / "out.xml", dialect="lowp")
    text = (tmp_path / "out.xml").read_text()
    for spelled in ('type="ReLU"', 'type="PReLU"', 'type="SoftMax"', 'type="Const"', 'layout="[N,C]"',
                    "output_names="):
        assert spelled in text
    assert ov.Core().read_model(str(tmp_path / "out.xml")).inputs[0].get_node().get_layout() == ov.Layout("NC")


V10 = """<?xml version="1.0"?>
<net name="old" version="10">
  <layers>
    <layer id="0" name="data" type="Parameter" version="opset1">
      <data shape="1,2" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>1</dim><dim>2</dim></port></output>
    </layer>
    <layer id="1" name="mystery" type="FancyOp" version="myext">
      <data gamma="0.5, 1" mode="fast"/>
      <input><port id="0"><dim>1</dim><dim>2</dim></port></input>
      <output><port id="1" precision="FP32"><dim>1</dim><dim>2</dim></port></output>
      <custom_child flag="1"/>
    </layer>
    <layer id="2" name="act" type="ReLU" version="opset1">
      <input><port id="0"><dim>1</dim><dim>2</dim></port></input>
      <output><port id="1" precision="FP32"><dim>1</dim><dim>2</dim></port></output>
    </layer>
    <layer id="3" name="out" type="Result" version="opset1">
      <input><port id="0"><dim>1</dim><dim>2</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
    <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
    <edge from-layer="2" from-port="1" to-layer="3" to-port="0"/>
  </edges>
  <meta_data><MO_version value="2022.1"/></meta_data>
</net>
"""


def test_v10_unknown_ops_and_meta_data_are_kept(tmp_path: Path) -> None:
    (tmp_path / "old.xml").write_text(V10)
    graph = read_ir(tmp_path / "old.xml")  # no .bin needed: no constants
    mystery = graph.find("mystery")
    assert (mystery.type, mystery.version, mystery.attrs) == ("FancyOp", "myext", {"gamma": "0.5, 1", "mode": "fast"})
    assert [e.tag for e in mystery.xml_extra] == ["custom_child"]
    assert graph.parameters[0].outputs[0].names == "data"  # v10 tensors are named after layers
    assert graph.find("act").outputs[0].names == "act"
    write_ir(graph, tmp_path / "new.xml", dialect="lowp")
    text = (tmp_path / "new.xml").read_text()
    assert 'version="11"' in text and '<custom_child flag="1"/>' in text and "MO_version" in text
    again = read_ir(tmp_path / "new.xml")
    assert again.find("mystery").attrs == mystery.attrs


def test_mvn_of_opset2_takes_one_input(tmp_path: Path) -> None:
    """MVN-0 (one input, axes as attributes) came with opset2, and OpenVINO writes it so: the reader
    refused it ("MVN-2 takes 2 inputs, the layer has 1"), found by the per-op test of issue 19."""
    import openvino.opset2 as opset2

    x = ops.parameter([1, 2, 4, 4], np.float32, name="x")
    mvn = opset2.mvn(x, False, True, 1e-5)
    assert mvn.get_type_info().version_id == "opset2"
    graph = read_ir(_save(ov.Model([mvn], [x], "mvn0"), tmp_path / "mvn0.xml"))
    node = next(node for node in graph if node.type == "MVN")
    assert node.version == "opset2" and len(node.inputs) == 1
