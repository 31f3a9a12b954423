"""Retake README's explorer screenshots: `python docs/screenshots.py http://127.0.0.1:8000` against a
`paperkg serve` of the seed store (`paperkg build examples/abstracts`), in Debian's Chromium."""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
SHOTS = {
    "explorer-entity.png": "/#/entity/GRPO",
    "explorer-paper.png": "/#/paper/16e255ef25e6",
}


def main(base: str) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        for name, path in SHOTS.items():
            page.goto(base + path)
            page.wait_for_selector("main h1")
            if "entity" in path:
                page.wait_for_function("() => window.paperkgGraph && window.paperkgGraph.nodes().length > 1")
            page.wait_for_timeout(300)
            page.screenshot(path=str(HERE / name))
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
