"""`lpt report --html` in a real headless Chromium (Debian's chromium and chromium-driver):
the page loads without console errors or any fetch, the table filters and sorts, choosing a
layer centres it in both graphs, and a 2,000-layer model's page loads self-contained and draws
(its load time is printed, not asserted: speed is for benchmarks, measured 0.7-1.6 s on 2 cores)."""
from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main

from wide_model import residual_chain

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
DETECTION = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "detection.xml"

if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
    pytest.skip("needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
                allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (the dev extra)")
Select = pytest.importorskip("selenium.webdriver.support.select").Select


def page(model: Path, out: Path) -> list[dict[str, Any]]:
    """Writes the page of `model` to `out` under LPT's library defaults (the detection fixture
    keeps layers in float there); returns the report's layers (its JSON)."""
    result = CliRunner().invoke(main, ["report", str(model), "--config", "default", "--format", "json",
                                       "--html", str(out)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["layers"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="lpt-chromium-")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={profile}", "--window-size=1400,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def load(driver: Any, path: Path) -> None:
    driver.get(path.as_uri())
    driver.execute_script("return document.readyState")  # waits for the load
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0


def shown(driver: Any, column: int = 0) -> list[str]:
    return driver.execute_script(
        "return [...document.querySelectorAll('#layers tbody tr')].filter(r => !r.hidden)"
        ".map(r => r.cells[arguments[0]].textContent)", column)


@pytest.fixture(scope="module")
def detection(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("html") / "detection.html"
    return out, page(DETECTION, out)


def test_filters_hide_what_does_not_match(browser, detection):
    out, layers = detection
    load(browser, out)
    names = [layer["name"] for layer in layers]
    assert shown(browser) == names
    browser.find_element("id", "filter").send_keys("conv_")
    assert shown(browser) == [n for n in names if "conv_" in n] != names
    browser.find_element("id", "filter").clear()
    browser.execute_script("arguments[0].dispatchEvent(new Event('input'))", browser.find_element("id", "filter"))
    Select(browser.find_element("id", "type")).select_by_value("Interpolate")
    assert shown(browser) == [layer["name"] for layer in layers if layer["type"] == "Interpolate"]
    Select(browser.find_element("id", "type")).select_by_value("")
    reason = next(layer["reason"]["code"] for layer in layers if layer["reason"])
    Select(browser.find_element("id", "reason")).select_by_value(reason)
    assert shown(browser) == [layer["name"] for layer in layers if layer["reason"] and layer["reason"]["code"] == reason]
    Select(browser.find_element("id", "reason")).select_by_value("")
    browser.find_element("css selector", 'input.status[value="not-quantized"]').click()
    assert shown(browser) == [layer["name"] for layer in layers if layer["status"] != "not-quantized"]


def test_sorting_by_a_column_reorders_the_rows(browser, detection):
    out, layers = detection
    load(browser, out)
    headers = browser.find_elements("css selector", "#layers th")
    macs = [h for h in headers if h.text == "MACs"][0]
    macs.click()
    values = [int(v) for v in shown(browser, 6) if v]
    assert values == sorted(values) and values != [layer["macs"] for layer in layers if layer["macs"] is not None]
    macs.click()
    assert [int(v) for v in shown(browser, 6) if v] == sorted(values, reverse=True)
    [h for h in headers if h.text == "type"][0].click()
    assert shown(browser, 1) == sorted((layer["type"] for layer in layers), key=str.casefold)


def test_choosing_a_layer_centres_it_before_and_after_with_its_reason(browser, detection):
    out, layers = detection
    load(browser, out)
    layer = next(layer for layer in layers if layer["status"] == "original-precision" and layer["transformed_name"])
    row = next(r for r in browser.find_elements("css selector", "#layers tbody tr")
               if r.find_element("css selector", "td").text == layer["name"])
    row.find_elements("css selector", "td")[1].click()
    assert layer["reason"]["code"] in browser.find_element("id", "chosen").text
    for pane, name in (("view-before", layer["name"]), ("view-after", layer["transformed_name"])):
        view = browser.find_element("id", pane)
        boxes = view.find_elements("css selector", "g.sel")
        assert len(boxes) == 1
        hover = boxes[0].find_element("css selector", "title").get_attribute("textContent")
        assert name in hover and layer["reason"]["code"] in hover
        box, frame = boxes[0].rect, view.rect
        assert frame["y"] <= box["y"] and box["y"] + box["height"] <= frame["y"] + frame["height"]
    # A tensor in u8/i8 is drawn in the low-precision colour somewhere in the after pane.
    assert browser.find_elements("css selector", "#view-after path.e0")
    # A dequantization LPT made exists only after LPT (others carry a moved layer's name).
    graphs = json.loads(re.search(r'id="lpt-graphs">(.*?)</script>', out.read_text(), re.S).group(1)
                        .replace("<\\/", "</"))
    before = {node[0] for node in graphs["graphs"][0]["nodes"]}
    index, node = next((i, node) for i, node in enumerate(graphs["graphs"][1]["nodes"])
                       if node[2] == "dq" and node[0] not in before and node[0] not in graphs["before_of"])
    browser.execute_script("const v = document.getElementById('view-after');"
                           "v.scrollTo(arguments[0] - v.clientWidth / 2, arguments[1] - v.clientHeight / 2);"
                           "v.dispatchEvent(new Event('scroll'));", node[4], node[5])
    box = browser.find_element("css selector", f'#view-after g[data-i="{index}"]')  # drawn once in view
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", box)
    assert "made by LPT" in browser.find_element("id", "chosen").text
    assert len(browser.find_elements("css selector", "#view-after g.sel")) == 1
    assert browser.find_elements("css selector", "#view-before g.sel") == []


def test_a_2000_layer_page_loads_and_draws(browser, tmp_path):
    model = residual_chain(tmp_path / "chain.xml")
    out = tmp_path / "chain.html"
    layers = page(model, out)
    assert len(layers) >= 2000
    text = out.read_text(encoding="utf-8")
    assert not re.search(r"<link|\bsrc=|@import|@font-face|url\((?!#)", text)
    load(browser, out)
    ready = browser.execute_script("return window.lptReady")
    print(f"\n2,000-layer page ready (parsed, graphs drawn, laid out) after {ready:.0f} ms")
    assert ready > 0  # the page's own ready mark: parsed, both graphs drawn
    assert browser.find_elements("css selector", "#view-after g.n")
