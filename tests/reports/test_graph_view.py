"""The whole-graph layout the HTML page draws: boxes never overlap, long edges bend between
rows instead of crossing boxes, and each op is marked by what LPT made of it."""
from __future__ import annotations

from pathlib import Path

from lpt_cli.lpt.engine.config import load_config
from lpt_cli.reports.analyze import analyze
from lpt_cli.reports.graph_view import BOX_H, BOX_W, graph_view

DETECTION = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "detection.xml"


def views():
    # LPT's library defaults: Interpolate-11 is not downgraded, so the FakeQuantizes above the two
    # upsamplings stay standalone in float (the plugin profiles downgrade it and run it on u8)
    analysis = analyze(DETECTION, load_config("default"))
    layers = analysis.report.layers
    before = graph_view(analysis.before, {row.name: row for row in layers}, transformed=False)
    after = graph_view(analysis.after, {row.transformed_name: row for row in layers if row.transformed_name},
                       transformed=True)
    return analysis, before, after


def test_boxes_do_not_overlap_and_edges_go_down_through_their_bends():
    _, *both = views()
    for view in both:
        boxes = [(x, y) for *_, x, y, _ in view["nodes"]]
        assert all(0 <= x and x + BOX_W <= view["w"] and 0 <= y and y + BOX_H <= view["h"] for x, y in boxes)
        for i, (x, y) in enumerate(boxes):
            assert not any(abs(x - u) < BOX_W and abs(y - v) < BOX_H for u, v in boxes[i + 1:])
        rows = sorted({y for _, y in boxes})
        for a, b, _, bends in view["edges"]:
            ys = [boxes[a][1], *bends[1::2], boxes[b][1]]
            assert ys == sorted(ys) and len(set(ys)) == len(ys)
            # one bend for every row strictly between the two boxes
            assert len(bends) // 2 == rows.index(boxes[b][1]) - rows.index(boxes[a][1]) - 1
        assert any(bends for *_, bends in view["edges"])


def test_standalone_fake_quantize_and_dequantizations_are_marked():
    analysis, before, after = views()
    left = {row.name for row in analysis.report.layers if row.type == "FakeQuantize" and row.status == "original-precision"}
    assert left
    for view in (before, after):
        kinds = {name: kind for name, _, kind, *_ in view["nodes"]}
        assert {name for name, kind in kinds.items() if kind == "fq-left"} == left
    after_kinds = {(type_, kind) for _, type_, kind, *_ in after["nodes"]}
    assert ("Multiply", "dq") in after_kinds


def test_weight_fake_quantize_folded_by_lpt_is_not_called_standalone(tmp_path):
    from wide_model import residual_chain

    analysis = analyze(residual_chain(tmp_path / "chain.xml", blocks=2), load_config("cpu"))
    assert not any(row.status == "original-precision" for row in analysis.report.layers)
    before = graph_view(analysis.before, {row.name: row for row in analysis.report.layers}, transformed=False)
    kinds = [kind for _, type_, kind, *_ in before["nodes"] if type_ == "FakeQuantize"]
    assert len(kinds) == 4 and set(kinds) == {"fq"}  # activations and weights of both blocks


def test_weight_chains_sit_beside_their_layer_not_on_the_top_row():
    """The page opened on a row of weight Convert -> Multiply chains (sources go to the top) and
    empty space: a chain of constants only now sits right above the layer it feeds."""
    analysis, before, _ = views()
    rows = {name: y for name, _, _, _, _, y, _ in before["nodes"]}
    step = BOX_H + 30
    weights = [node for node in analysis.before.nodes.values()
               if node.type == "Multiply" and node.name.endswith("/fq_weights_1")]
    assert weights
    for node in weights:
        layer = node.outputs[0].uses[0].node
        assert rows[node.name] == rows[layer.name] - step  # right above its layer
    assert min(rows.values()) == rows["input"]  # the model's input on top, alone with its peers


def test_the_page_opens_on_the_first_layer_left_in_float(tmp_path):
    import json
    import re

    from lpt_cli.reports.html import report_html, start_layer

    analysis, _, _ = views()
    first_float = next(row.name for row in analysis.report.layers if row.status == "original-precision")
    assert start_layer(analysis.report.layers) == first_float
    page = report_html(analysis)
    data = json.loads(re.search(r'id="lpt-graphs">(.*?)</script>', page, re.S).group(1).replace("<\\/", "</"))
    assert data["start"] == first_float and "if (data.start !== null) choose(data.start, null);" in page
    assert "esc(tail(name, 24))" in page  # box names keep their end
    every_low = [row for row in analysis.report.layers if row.status != "original-precision"]
    weightable = next(row.name for row in every_low if row.type == "Convolution")
    assert start_layer(tuple(every_low)) == weightable
