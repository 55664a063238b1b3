"""`lpt report --layer NAME --svg OUT.svg`: a self-contained picture, tensors coloured by precision."""
from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from lpt_cli.api import analysis
from lpt_cli.cli.main import main
from lpt_cli.reports.svg import FLOAT_COLOUR, LOW_COLOUR, MAX_NODES, neighbourhood

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"
DETECTION = MODELS / "detection.xml"
SVG = "{http://www.w3.org/2000/svg}"


def draw(tmp_path: Path, layer: str, config: str, model: Path = DETECTION) -> ElementTree.Element:
    out = tmp_path / f"{layer}_{config}.svg"
    result = CliRunner().invoke(main, ["report", str(model), "--layer", layer, "--config", config, "--svg", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{layer} (")  # the text view is printed as without --svg
    return ElementTree.fromstring(out.read_text(encoding="utf-8"))


def edges_into(svg: ElementTree.Element, panel: str, layer: str) -> dict[str, str]:
    """Edge tooltip ('src -> dst (in N): u8[...]') -> stroke colour, for edges into `layer` in `panel`."""
    group = next(g for g in svg.iter(f"{SVG}g") if g.get("id") == panel)
    found = {}
    for edge in group.iter(f"{SVG}g"):
        title, path = edge.find(f"{SVG}title"), edge.find(f"{SVG}path")
        if title is not None and path is not None and re.search(rf" -> {re.escape(layer)} \(in \d+\)", title.text):
            found[title.text] = path.get("stroke")
    return found


def test_low_precision_inputs_are_green_after_lpt_only(tmp_path):
    svg = draw(tmp_path, "conv_51", "cpu")
    after = edges_into(svg, "after-lpt", "conv_51")
    assert sorted(after.values()) == [LOW_COLOUR, LOW_COLOUR]
    assert all(re.search(r": (u8|i8)\[", title) for title in after)
    before = edges_into(svg, "before-lpt", "conv_51")
    assert len(before) == 2 and set(before.values()) == {FLOAT_COLOUR}


def test_a_layer_left_in_float_shows_its_reason_and_float_inputs(tmp_path):
    svg = draw(tmp_path, "conv_51", "default")
    texts = [t.text or "" for t in svg.iter(f"{SVG}text")]
    assert texts[0] == "conv_51 (Convolution): original-precision"
    assert texts[1].startswith("no_dequantization_upstream: ")
    assert FLOAT_COLOUR in edges_into(svg, "after-lpt", "conv_51").values()


def test_a_removed_layer_has_an_empty_after_panel(tmp_path):
    svg = draw(tmp_path, "add_58", "gpu")
    after = next(g for g in svg.iter(f"{SVG}g") if g.get("id") == "after-lpt")
    assert any("not in this model" in (t.text or "") for t in after.iter(f"{SVG}text"))
    assert not list(after.iter(f"{SVG}rect"))


def test_the_file_is_self_contained(tmp_path):
    text = ElementTree.tostring(draw(tmp_path, "conv_51", "cpu"), encoding="unicode")
    assert "<script" not in text and "@import" not in text and "<image" not in text
    assert set(re.findall(r"https?://[^\"' ]+", text)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"href=", text)


def test_the_neighbourhood_is_bounded_and_hides_quantizer_ranges():
    found = analysis(MODELS / "transformer.xml")
    for node in found.before:
        if node.type in ("MatMul", "FakeQuantize"):
            around = neighbourhood(found.before, node)
            assert node in around and len(around) <= MAX_NODES
            ids = {n.id for n in around}
            for user in around:
                if user.type == "FakeQuantize":
                    assert not any(slot.source.node.id in ids for slot in user.inputs[1:])


@pytest.mark.parametrize(("args", "message"), [
    (("--svg", "x.svg"), "--svg needs --layer NAME"),
    (("--layer", "conv_51", "--svg", "x.png"), "the picture must be an .svg path"),
    (("--layer", "conv_51", "--svg", "x.dir/out.svg"), "cannot write"),
    (("--layer", "conv_5", "--svg", "x.svg"), "did you mean"),
])
def test_bad_svg_use_is_one_line_exit_2(tmp_path, args, message):
    result = CliRunner().invoke(main, ["report", str(DETECTION), *[str(tmp_path / a) if a.startswith("x.") else a
                                                                   for a in args]])
    assert result.exit_code == 2 and message in result.stderr and result.stderr.count("\n") == 1
    assert result.stdout == "" and list(tmp_path.iterdir()) == []


def test_svg_takes_one_model(tmp_path):
    result = CliRunner().invoke(main, ["report", str(DETECTION), str(MODELS / "resnet.xml"), "--layer", "conv_2",
                                       "--svg", str(tmp_path / "x.svg")])
    assert result.exit_code == 2 and "takes one model" in result.stderr


def test_the_picture_after_lpt_reaches_the_layers_the_one_before_does(tmp_path):
    """The dequantization Multiply LPT puts after a conv counted as one of the three consumers
    drawn, so the FakeQuantize after conv -> add -> relu was missing from the picture after LPT."""
    svg = draw(tmp_path, "conv_32", "cpu", MODELS / "resnet.xml")
    panels = {g.get("id"): {t.text for t in g.iter(f"{SVG}title")} for g in svg.iter(f"{SVG}g")
              if g.get("id") in ("before-lpt", "after-lpt")}
    for panel in ("before-lpt", "after-lpt"):
        assert any(title.startswith("FakeQuantize relu_35/fq_output_0:") for title in panels[panel]), panel
