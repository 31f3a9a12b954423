"""Issue 13.8: the ranges the OpenAPI document gives are the ones the server enforces, for every
numeric query parameter of every GET route: the bounds are accepted, one step beyond is a 422."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

STEP = {"integer": 1, "number": 0.5}


def _schema(p: dict[str, Any]) -> dict[str, Any]:
    """The parameter's schema, without the `null` alternative of an optional one."""
    schema = p["schema"]
    return next((s for s in schema.get("anyOf", []) if s.get("type") != "null"), schema)


def _filled(parameters: list[dict[str, Any]]) -> dict[str, Any]:
    """Values for the required parameters (a name the small store has, numeric minimums)."""
    values: dict[str, Any] = {}
    for p in parameters:
        if p["in"] == "query" and p.get("required"):
            schema = _schema(p)
            if "enum" in schema:
                values[p["name"]] = schema["enum"][0]
            else:
                values[p["name"]] = schema.get("minimum", 1) if schema.get("type") in STEP else "GRPO"
    return values


def _url(path: str) -> str:
    return path.replace("{name}", "neighbors").replace("{id}", "GRPO")


def test_every_documented_range_is_the_enforced_one(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    checked = 0
    for path, item in schema["paths"].items():
        operation = item.get("get")
        if operation is None or path.startswith("/export"):
            continue
        parameters = operation.get("parameters", [])
        for p in parameters:
            schema = _schema(p)
            kind = schema.get("type")
            if p["in"] != "query" or kind not in STEP:
                continue
            for bound, sign in (("minimum", -1), ("maximum", 1)):
                if bound not in schema:
                    continue
                edge = schema[bound]
                params = {**_filled(parameters), p["name"]: edge}
                inside = client.get(_url(path), params=params)
                assert inside.status_code != 422, (path, p["name"], edge, inside.text)
                params[p["name"]] = edge + sign * STEP[kind]
                outside = client.get(_url(path), params=params)
                assert outside.status_code == 422, (path, p["name"], params[p["name"]], outside.text)
                checked += 1
    assert checked >= 60, checked
