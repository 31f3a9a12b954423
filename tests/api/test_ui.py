"""The browser-facing routes without a browser: the doc pages and the vendored files they load.

The browser tests in tests/explorer/ check that the pages render; these check what they are made of.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from fastapi.testclient import TestClient

import paperkg.api

VENDOR = Path(paperkg.api.__file__).parent / "static" / "vendor"


def test_vendored_files_are_the_ones_the_readme_records() -> None:
    """The README's checksums are the files' (so a re-vendoring that forgets the README fails)."""
    readme = (VENDOR / "README.md").read_text()
    recorded = dict((path, digest) for digest, path in
                    re.findall(r"^\s+([0-9a-f]{64})\s+(\S+)", readme, flags=re.MULTILINE))
    shipped = {str(p.relative_to(VENDOR)) for p in VENDOR.rglob("*") if p.suffix in {".js", ".css"}}
    assert set(recorded) == shipped
    for path, digest in recorded.items():
        assert hashlib.sha256((VENDOR / path).read_bytes()).hexdigest() == digest, path
    for package in ("cytoscape", "swagger-ui", "redoc", "uplot"):
        assert (VENDOR / package / "LICENSE").is_file()


def test_doc_pages_load_only_served_files(client: TestClient) -> None:
    for path, assets in (("/docs", ["swagger-ui/swagger-ui-bundle.js", "swagger-ui/swagger-ui.css"]),
                         ("/redoc", ["redoc/redoc.standalone.js"])):
        response = client.get(path)
        assert response.status_code == 200
        html = response.text
        urls = re.findall(r"""(?:src|href)=["']([^"']+)""", html) + re.findall(r"url: *'([^']+)'", html)
        assert urls and all(u.startswith("/") for u in urls), urls
        for asset in assets:
            assert f"/static/vendor/{asset}" in urls
            assert client.get(f"/static/vendor/{asset}").status_code == 200


def test_static_files_are_not_in_the_api_schema(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert not {"/", "/docs", "/redoc"} & set(paths)
    assert not any(p.startswith("/static") for p in paths)
