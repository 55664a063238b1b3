"""`lpt report MODEL --html OUT.html`: one self-contained page, a row per layer, pictures of the layers that matter."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from lpt_cli.cli.main import main
from lpt_cli.reports import html as html_module

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"
DETECTION = MODELS / "detection.xml"
WEIGHTABLE = {"Convolution", "GroupConvolution", "ConvolutionBackpropData", "MatMul"}


def run(*args: object):
    return CliRunner().invoke(main, ["report", *map(str, args)])


def page(tmp_path: Path, config: str = "default") -> tuple[str, list[dict]]:
    out = tmp_path / "report.html"
    result = run(DETECTION, "--config", config, "--format", "json", "--html", out)
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8"), json.loads(result.stdout)["layers"]


def test_a_row_per_layer_with_its_status(tmp_path):
    text, layers = page(tmp_path)
    rows = re.findall(r'<tr class="[^"]+" data-status="([^"]+)"><td>(?:<a href="#[^"]+">)?([^<]+)<', text)
    assert rows == [(layer["status"], layer["name"]) for layer in layers]


def test_pictures_of_float_removed_and_weightable_layers_linked_from_their_rows(tmp_path):
    text, layers = page(tmp_path)
    wanted = [layer["name"] for layer in layers
              if layer["status"] in ("original-precision", "removed") or layer["type"] in WEIGHTABLE]
    pictures = re.findall(r'<details class="picture" id="(layer-\d+)"><summary>([^<]+) \(', text)
    assert [name for _, name in pictures] == wanted
    for anchor, name in pictures:
        assert f'<a href="#{anchor}">{name}</a>' in text
    assert text.count("<svg ") == len(wanted)


def test_the_page_is_self_contained_and_its_ids_unique(tmp_path):
    text, _ = page(tmp_path)
    assert set(re.findall(r"https?://[^\"' <]+", text)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"<link|\bsrc=|@import", text)
    assert all(ref.startswith("#") for ref in re.findall(r'href="([^"]*)"', text))
    ids = Counter(re.findall(r'\bid="([^"]+)"', text))
    assert ids and max(ids.values()) == 1
    assert all(ref in ids for ref in re.findall(r"url\(#([^)]+)\)", text))


def test_stdout_is_the_report_as_without_html(tmp_path):
    with_page = run(DETECTION, "--format", "csv", "--html", tmp_path / "r.html")
    assert with_page.exit_code == 0 and with_page.stdout == run(DETECTION, "--format", "csv").stdout


def test_pictures_are_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(html_module, "MAX_PICTURES", 2)
    text, _ = page(tmp_path)
    assert text.count('<details class="picture"') == 2
    assert re.search(r"\d+ more layers worth a picture are not drawn \(at most 2\)", text)


def test_bad_html_use_is_one_line_exit_2(tmp_path):
    result = run(DETECTION, "--html", tmp_path / "report.txt")
    assert result.exit_code == 2 and result.stdout == "" and "the page must be an .html path" in result.stderr
    several = run(DETECTION, MODELS / "resnet.xml", "--html", tmp_path / "r.html")
    assert several.exit_code == 2 and "--html takes one model" in several.stderr
    assert list(tmp_path.iterdir()) == []
