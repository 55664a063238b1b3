"""The whole-graph layout the HTML page draws: boxes never overlap, long edges bend between
rows instead of crossing boxes, and each op is marked by what LPT made of it."""
from __future__ import annotations

from pathlib import Path

from lpt_cli.lpt.engine.config import load_config
from lpt_cli.reports.analyze import analyze
from lpt_cli.reports.graph_view import BOX_H, BOX_W, graph_view

DETECTION = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "detection.xml"


def views():
    analysis = analyze(DETECTION, load_config("cpu"))
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
