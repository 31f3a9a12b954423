"""The browser side: the explorer at `/`, Swagger UI at `/docs`, ReDoc at `/redoc`, and their files
under `/static`.

Every file a page loads ships inside the package (`api/static/`, package data; the third-party ones
vendored from npm at pinned versions, see `api/static/vendor/README.md`), so the pages work on a
machine with no internet: FastAPI's own `/docs` and `/redoc` load Swagger UI, ReDoc, a favicon and
Google Fonts from CDNs, hence `docs_url=None` in `create_app` and these routes instead. The explorer
is one static page that talks to the JSON API only; its pages are hash routes (`/#/entity/<id>`), so
every address is shareable while this one route serves them all.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response

STATIC_PACKAGE = ("paperkg.api", "static")
VENDOR = "/static/vendor"

router = APIRouter(include_in_schema=False)

# The explorer shows titles, abstracts, authors, names and urls from input files anyone may have
# written. It builds its pages with DOM text nodes (never HTML), and this policy is the second
# line: only the page's own script files run (no inline script, no event-handler attributes, no
# `javascript:` urls, no eval), it talks to this server only, and no other site can frame it.
# Inline styles stay allowed: the page colours badges with `style` attributes, which run nothing.
_BASE_POLICY = ("default-src 'self'; connect-src 'self'; img-src 'self' data:; object-src 'none'; "
                "base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
                "style-src 'self' 'unsafe-inline'")
EXPLORER_CSP = f"{_BASE_POLICY}; script-src 'self'"
_INLINE_SCRIPT_RE = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def docs_policy(html: str) -> str:
    """The policy of a docs page: the explorer's, plus exactly the inline scripts FastAPI's page
    template writes (each allowed by its SHA-256, so no other inline script can run) and the blob
    workers ReDoc starts for its search."""
    sources = ["'self'", *(f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'"
                           for s in _INLINE_SCRIPT_RE.findall(html))]
    return f"{_BASE_POLICY}; script-src {' '.join(sources)}; worker-src 'self' blob:"


class _StaticFiles(StaticFiles):
    """StaticFiles whose every file carries the explorer's policy (an HTML or SVG file opened
    directly is a document too)."""

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result,
                      scope: Any, status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Content-Security-Policy"] = EXPLORER_CSP
        return response


def static_files() -> StaticFiles:
    """`/static`: the package's own files, found through the installed package (not a path relative to
    the working directory), so a wheel install serves them too."""
    return _StaticFiles(packages=[STATIC_PACKAGE])


def _with_policy(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = docs_policy(bytes(page.body).decode())
    return page


def _index_path() -> str:
    from importlib.resources import files

    return str(files("paperkg.api") / "static" / "explorer" / "index.html")


@router.get("/", response_class=FileResponse)
def explorer() -> FileResponse:
    """The explorer's single page; the browser then asks the JSON API for everything it shows."""
    return FileResponse(_index_path(), media_type="text/html",
                        headers={"Content-Security-Policy": EXPLORER_CSP})


@router.get("/docs", response_class=HTMLResponse)
def swagger_ui(request: Request) -> HTMLResponse:
    return _with_policy(get_swagger_ui_html(
        openapi_url=request.app.openapi_url,
        title=f"{request.app.title} - Swagger UI",
        swagger_js_url=f"{VENDOR}/swagger-ui/swagger-ui-bundle.js",
        swagger_css_url=f"{VENDOR}/swagger-ui/swagger-ui.css",
        swagger_favicon_url=f"{VENDOR}/swagger-ui/favicon-32x32.png",
        # Swagger UI's default validator badge is an image from validator.swagger.io.
        swagger_ui_parameters={"validatorUrl": None},
    ))


@router.get("/redoc", response_class=HTMLResponse)
def redoc(request: Request) -> HTMLResponse:
    return _with_policy(get_redoc_html(
        openapi_url=request.app.openapi_url,
        title=f"{request.app.title} - ReDoc",
        redoc_js_url=f"{VENDOR}/redoc/redoc.standalone.js",
        redoc_favicon_url=f"{VENDOR}/swagger-ui/favicon-32x32.png",
        with_google_fonts=False,
    ))
