"""The catalog of named queries: one `queries/<name>.cypher` file each, shipped as package data.

A file starts with a header of `//` comment lines, then the Cypher:

    // name: papers_mentioning
    // description: Papers that mention an entity under any of its names or aliases.
    // param: name entity required example=GRPO
    // param: limit int optional default=20 min=1 max=1000 example=5
    // ordered: no                      (optional; default yes: the query sets a total ORDER BY)
    MATCH ...

The header is the single source of the query's documentation, its parameter types (see `params`) and
an example that returns rows on the example corpus, so the CLI's `--list`, the HTTP API's `/queries`
and the parity tests cannot drift from the Cypher that runs. Loading checks that every `$param` the
Cypher uses is one the header declares (after the type's renaming, e.g. `name` -> `$name_key`) and
the other way round.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from paperkg.graph.errors import BadInputError
from paperkg.queries.params import Param, parse_param_line

_HEADER_RE = re.compile(r"^//\s*([a-z_]+)\s*:\s*(.*?)\s*$")
_CYPHER_PARAM_RE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class CatalogQuery:
    """One named query: its header (documentation, parameters) and its Cypher text."""

    name: str
    description: str
    params: tuple[Param, ...]
    cypher: str
    ordered: bool = True

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def takes_entities(self) -> bool:
        """Whether it takes an entity name, so may answer that the graph holds no such entity."""
        return any(p.type in ("entity", "entities") for p in self.params)

    def example_params(self) -> dict[str, Any]:
        return {p.name: p.example for p in self.params}

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "params": [{"name": p.name, "type": p.type, "required": p.required, "default": p.default,
                        "min": p.min, "max": p.max, "example": p.example, "schema": p.json_schema()}
                       for p in self.params],
        }


def parse_query(text: str, filename: str) -> CatalogQuery:
    """Parse one catalog file; raises ValueError naming the file on any header problem."""
    try:
        return _parse(text, filename)
    except (ValueError, BadInputError) as err:
        raise ValueError(f"{filename}: {err}") from err


def _parse(text: str, filename: str) -> CatalogQuery:
    lines = text.splitlines()
    fields: dict[str, str] = {}
    params: list[Param] = []
    body_start = 0
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("//"):
            body_start = i
            break
        match = _HEADER_RE.match(stripped)
        if not match:
            continue        # free comment lines in the header are allowed
        key, value = match.groups()
        if key == "param":
            params.append(parse_param_line(value))
        elif key in ("name", "description", "ordered"):
            if key in fields:
                raise ValueError(f"duplicate header field {key!r}")
            fields[key] = value
        else:
            raise ValueError(f"unknown header field {key!r}")
    else:
        raise ValueError("no Cypher after the header")
    for key in ("name", "description"):
        if not fields.get(key):
            raise ValueError(f"missing header field {key!r}")
    name = fields["name"]
    if not _NAME_RE.match(name):
        raise ValueError(f"bad query name {name!r}")
    expected_stem = filename.rsplit("/", 1)[-1].removesuffix(".cypher")
    if name != expected_stem:
        raise ValueError(f"header name {name!r} differs from the file name")
    if len({p.name for p in params}) != len(params):
        raise ValueError("duplicate param names")
    ordered = fields.get("ordered", "yes").lower()
    if ordered not in ("yes", "no"):
        raise ValueError("ordered must be yes or no")
    cypher = "\n".join(lines[body_start:]).strip() + "\n"
    provided: set[str] = set()
    for p in params:
        provided.update(p.cypher_params(p.coerce(p.example)))
    used = set(_CYPHER_PARAM_RE.findall(cypher))
    if used - provided:
        raise ValueError(f"Cypher uses undeclared params: {sorted(used - provided)}")
    if provided - used:
        raise ValueError(f"declared params the Cypher never uses: {sorted(provided - used)}")
    return CatalogQuery(name=name, description=fields["description"], params=tuple(params),
                        cypher=cypher, ordered=ordered == "yes")


@functools.cache
def load_catalog() -> dict[str, CatalogQuery]:
    """Every catalog query by name, parsed once per process from the package's `.cypher` files."""
    catalog: dict[str, CatalogQuery] = {}
    for entry in sorted(resources.files("paperkg.queries").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".cypher"):
            query = parse_query(entry.read_text(encoding="utf-8"), entry.name)
            catalog[query.name] = query
    return catalog


def catalog_json() -> list[dict[str, Any]]:
    """The catalog as `[{"name", "description", "params": [{"name", "type", "required", "default",
    "min", "max", "example", "schema"}]}]` (`schema`: the value's JSON Schema, range included)
    sorted by name: what `paperkg query --list --json` prints and `GET /queries` returns."""
    return [q.to_json() for _, q in sorted(load_catalog().items())]
