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

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC_PACKAGE = ("paperkg.api", "static")
VENDOR = "/static/vendor"

router = APIRouter(include_in_schema=False)


def static_files() -> StaticFiles:
    """`/static`: the package's own files, found through the installed package (not a path relative to
    the working directory), so a wheel install serves them too."""
    return StaticFiles(packages=[STATIC_PACKAGE])


def _index_path() -> str:
    from importlib.resources import files

    return str(files("paperkg.api") / "static" / "explorer" / "index.html")


@router.get("/", response_class=FileResponse)
def explorer() -> FileResponse:
    """The explorer's single page; the browser then asks the JSON API for everything it shows."""
    return FileResponse(_index_path(), media_type="text/html")


@router.get("/docs", response_class=HTMLResponse)
def swagger_ui(request: Request) -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url=request.app.openapi_url,
        title=f"{request.app.title} - Swagger UI",
        swagger_js_url=f"{VENDOR}/swagger-ui/swagger-ui-bundle.js",
        swagger_css_url=f"{VENDOR}/swagger-ui/swagger-ui.css",
        swagger_favicon_url=f"{VENDOR}/swagger-ui/favicon-32x32.png",
        # Swagger UI's default validator badge is an image from validator.swagger.io.
        swagger_ui_parameters={"validatorUrl": None},
    )


@router.get("/redoc", response_class=HTMLResponse)
def redoc(request: Request) -> HTMLResponse:
    return get_redoc_html(
        openapi_url=request.app.openapi_url,
        title=f"{request.app.title} - ReDoc",
        redoc_js_url=f"{VENDOR}/redoc/redoc.standalone.js",
        redoc_favicon_url=f"{VENDOR}/swagger-ui/favicon-32x32.png",
        with_google_fonts=False,
    )
