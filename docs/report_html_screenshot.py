"""Redraws docs/report-html.png: the graph panes of `lpt report fixtures/models/detection.xml
--config default --html` in headless Chromium, with the Interpolate LPT left in float chosen
(LPT's library defaults do not downgrade Interpolate-11; the plugin profiles do).

    python docs/report_html_screenshot.py   (needs chromium, chromium-driver and selenium)
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from selenium import webdriver

ROOT = Path(__file__).resolve().parents[1]
LAYER = "upsample_68"


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="lpt-shot-"))
    page = work / "detection.html"
    subprocess.run([sys.executable, "-m", "lpt_cli", "report", str(ROOT / "fixtures/models/detection.xml"),
                    "--config", "default", "--html", str(page)], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={work / 'profile'}", "--window-size=1200,1000", "--hide-scrollbars"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(page.as_uri())
        driver.execute_script("choose(arguments[0], null)", LAYER)
        driver.find_element("id", "graphs").screenshot(str(ROOT / "docs" / "report-html.png"))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
