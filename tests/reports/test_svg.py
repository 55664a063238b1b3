"""layer_svg on hand-built graphs: names are escaped, tensors coloured by their element type."""
from __future__ import annotations

from xml.etree import ElementTree

from lpt_cli.ir import Graph
from lpt_cli.reports.svg import FLOAT_COLOUR, LOW_COLOUR, layer_svg

from graphs import ACT, conv, fake_quantize, weights

SVG = "{http://www.w3.org/2000/svg}"
ODD = 'conv <"a" & b>'


def _graph(low: bool) -> Graph:
    g = Graph()
    x = g.add_node("Parameter", outputs=[("f32", ACT)], name="input").outputs[0]
    act = fake_quantize(g, x, "fq", "u8" if low else "f32")
    out = conv(g, act, weights(g, low=low), name=ODD)
    g.add_node("Result", [out], name="result")
    return g


def _edges(svg: ElementTree.Element, panel: str) -> dict[str, str]:
    group = next(g for g in svg.iter(f"{SVG}g") if g.get("id") == panel)
    return {e.find(f"{SVG}title").text: e.find(f"{SVG}path").get("stroke")
            for e in group.iter(f"{SVG}g") if e.find(f"{SVG}path") is not None}


def test_odd_names_are_escaped_and_tensors_coloured():
    svg = ElementTree.fromstring(layer_svg(_graph(False), _graph(True), ODD, ODD, (f"{ODD}: low-precision",)))
    assert next(svg.iter(f"{SVG}text")).text == f"{ODD}: low-precision"
    before, after = _edges(svg, "before-lpt"), _edges(svg, "after-lpt")
    assert after[f"fq -> {ODD} (in 0): u8[1x3x8x8]"] == LOW_COLOUR
    assert before[f"fq -> {ODD} (in 0): f32[1x3x8x8]"] == FLOAT_COLOUR
    assert any(title.endswith("(in 1): i8[4x3x3x3]") and colour == LOW_COLOUR for title, colour in after.items())


def test_a_layer_missing_after_lpt_leaves_that_panel_empty():
    svg = ElementTree.fromstring(layer_svg(_graph(False), _graph(True), ODD, None, ("removed",)))
    assert _edges(svg, "after-lpt") == {} and _edges(svg, "before-lpt")
