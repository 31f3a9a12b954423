"""Typed parameters of catalog queries: validation, coercion, and what the Cypher receives.

Values reach `run_named` as strings (CLI `--param`, HTTP GET) or as JSON values (HTTP POST), so each
type accepts both forms and turns them into one canonical value. The Cypher never sees user text it
has to normalise itself: entity names arrive as `compact_key` strings (`$name_key`), collection names
as collection ids (`$collection_id`, which the id constraint index answers), entity types as one
label from the closed set. Normalising once, here, in Python is what makes the embedded
implementations and the Cypher on Neo4j see exactly the same inputs.

Types (the `type` field of the catalog JSON):

- `entity`: any name or alias of an entity, case-, dash- and spacing-insensitive -> `$<name>_key`,
  and `$<name>_query`, the same key as an exact full-text term (see `fulltext_term`)
- `entities`: a list of such names (JSON list, or one string split on commas) -> `$<name>_keys`,
  and `$<name>_queries`, their full-text terms
- `search`: a fragment of a name, same normalisation -> `$<name>_key` (on Neo4j, matched through
  the trigram TEXT index over `keys_text`, graph/schema.cypher)
- `name`: a whole name that need not be any entity's (a model family: `Qwen`), same normalisation
  -> `$<name>_key` and `$<name>_query`, the key as an exact full-text term, as for `entity`; a name
  nothing has gives no rows, not the "no entity named" error an `entity` gives
- `entity_type`: one of the entity labels (case-insensitive input) -> `$<name>` (null when absent)
- `choice`: one of the words its header lists (`values=absolute|delta|ratio`; case-insensitive
  input) -> `$<name>` (the default, or null when absent and it has none)
- `collection`: a collection's name or id -> `$<name>_id`
- `paper`: a paper id, exactly as given (ids are the user's, so not normalised) -> `$<name>`, and
  `$<name>_query`, the id as an exact full-text term (for a record id merged into another paper)
- `int`: an integer within `min`..`max` -> `$<name>` (the default when absent)
- `float`: a finite number within `min`..`max` -> `$<name>` as a float (the default when absent),
  e.g. `min_confidence`

Why entity names (and paper ids) also arrive as a full-text term: on Neo4j an entity is found through
the full-text index `paperkg_entity_keys` over `keys` (graph/schema.cypher) instead of a scan of every
entity node (a merged paper id likewise through `paperkg_paper_ids`), and
`db.index.fulltext.queryNodes` takes a Lucene query string, not a value. Building that string
here, from the key and nothing else, keeps user text out of Lucene syntax; the Cypher then re-checks
`$name_key IN e.keys`, so the index only narrows the candidates and never decides a result. The
derived params are internal: users see the declared ones only (the catalog's `params`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from paperkg.graph.errors import BadInputError
from paperkg.graph.model import ENTITY_LABELS, collection_id
from paperkg.graph.normalize import compact_key

PARAM_TYPES: tuple[str, ...] = ("entity", "entities", "search", "name", "entity_type", "choice",
                                "collection", "paper", "int", "float")
# JSON Schema of each type's canonical value, for the HTTP API's OpenAPI description.
JSON_SCHEMA: dict[str, dict[str, Any]] = {
    "entity": {"type": "string", "minLength": 1},
    "entities": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
    "search": {"type": "string", "minLength": 1},
    "name": {"type": "string", "minLength": 1},
    "entity_type": {"type": "string", "enum": list(ENTITY_LABELS)},
    "choice": {"type": "string"},
    "collection": {"type": "string", "minLength": 1},
    "paper": {"type": "string", "minLength": 1},
    "int": {"type": "integer"},
    "float": {"type": "number"},
}
MAX_TEXT = 500          # longer names are not names; refusing them keeps scans and logs bounded
MAX_LIST = 20           # papers_with_all over more entities than this is not a sensible question
_INT_RE = re.compile(r"^\s*[+-]?\d{1,12}\s*$")
_FLOAT_RE = re.compile(r"^\s*[+-]?(\d{1,12}(\.\d{0,12})?|\.\d{1,12})([eE][+-]?\d{1,3})?\s*$")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_LABELS_BY_FOLD = {label.casefold(): label for label in ENTITY_LABELS}


@dataclass(frozen=True)
class Param:
    """One declared parameter of a catalog query (parsed from its `// param:` header line)."""

    name: str
    type: str
    required: bool
    example: Any
    default: Any = None
    min: float | None = None
    max: float | None = None
    values: tuple[str, ...] = ()      # a `choice`'s words

    def describe(self) -> str:
        """`int 1..1000`, `entity_type (one of Method, ...)`: what error messages call the type."""
        if self.type in ("int", "float"):
            lo = "" if self.min is None else str(self.min)
            hi = "" if self.max is None else str(self.max)
            return f"{self.type} {lo}..{hi}" if lo or hi else self.type
        if self.type == "entity_type":
            return f"entity_type (one of {', '.join(ENTITY_LABELS)})"
        if self.type == "choice":
            return f"one of {', '.join(self.values)}"
        if self.type == "entities":
            return f"entities (a list of 1..{MAX_LIST} entity names, or one string of comma-separated names)"
        if self.type == "collection":
            return "collection (a collection name or id)"
        if self.type == "paper":
            return f"paper (a paper id, up to {MAX_TEXT} characters)"
        return f"{self.type} (a name or alias, up to {MAX_TEXT} characters)"

    def json_schema(self) -> dict[str, Any]:
        schema = dict(JSON_SCHEMA[self.type])
        if self.type == "choice":
            schema["enum"] = list(self.values)
        if self.type in ("int", "float"):
            if self.min is not None:
                schema["minimum"] = self.min
            if self.max is not None:
                schema["maximum"] = self.max
        if self.default is not None:
            schema["default"] = self.default
        return schema

    def bad(self, got: Any, why: str = "") -> BadInputError:
        shown = repr(got)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        detail = f": {why}" if why else ""
        return BadInputError(f"parameter {self.name!r} must be {self.describe()}, got {shown}{detail}")

    def coerce(self, value: Any) -> Any:
        """The canonical value of a user-given `value` (string or JSON); raises BadInputError."""
        if self.type == "int":
            return self._coerce_int(value)
        if self.type == "float":
            return self._coerce_float(value)
        if self.type == "entities":
            return self._coerce_list(value)
        text = self._text(value)
        if self.type == "entity_type":
            label = _LABELS_BY_FOLD.get(text.strip().casefold())
            if label is None:
                raise self.bad(value)
            return label
        if self.type == "choice":
            word = next((v for v in self.values if v.casefold() == text.strip().casefold()), None)
            if word is None:
                raise self.bad(value)
            return word
        if self.type in ("entity", "search", "name") and not compact_key(text):
            raise self.bad(value, "it has no letters or digits to match")
        if self.type == "collection" and not text.strip():
            raise self.bad(value)
        return text

    def _text(self, value: Any) -> str:
        if not isinstance(value, str):
            raise self.bad(value)
        if not value.strip():
            raise self.bad(value, "it is empty")
        if len(value) > MAX_TEXT:
            raise self.bad(value, f"longer than {MAX_TEXT} characters")
        if _SURROGATE_RE.search(value):
            raise self.bad(value, "it contains a lone surrogate (invalid Unicode)")
        return value

    def _coerce_int(self, value: Any) -> int:
        if isinstance(value, bool):
            raise self.bad(value)
        if isinstance(value, int):
            number = value
        elif (isinstance(value, float) and value.is_integer()) or \
                (isinstance(value, str) and _INT_RE.match(value)):
            number = int(value)
        else:
            raise self.bad(value)
        if (self.min is not None and number < self.min) or (self.max is not None and number > self.max):
            raise self.bad(value, "out of range")
        return number

    def _coerce_float(self, value: Any) -> float:
        if isinstance(value, bool):
            raise self.bad(value)
        if not (isinstance(value, int | float) or (isinstance(value, str) and _FLOAT_RE.match(value))):
            raise self.bad(value)
        number = float(value)
        if not math.isfinite(number):
            raise self.bad(value, "not a finite number")
        if (self.min is not None and number < self.min) or (self.max is not None and number > self.max):
            raise self.bad(value, "out of range")
        return number

    def _coerce_list(self, value: Any) -> list[str]:
        items: Any = value
        if isinstance(value, str):
            stripped = value.strip()
            if stripped.startswith("["):
                try:
                    items = json.loads(stripped)
                except ValueError as err:
                    raise self.bad(value, "not a JSON list") from err
            else:
                items = [part for part in stripped.split(",") if part.strip()]
        if not isinstance(items, list | tuple) or not items:
            raise self.bad(value)
        if len(items) > MAX_LIST:
            raise self.bad(value, f"more than {MAX_LIST} names")
        names = []
        for item in items:
            text = self._text(item).strip()
            if not compact_key(text):
                raise self.bad(value, f"{item!r} has no letters or digits to match")
            names.append(text)
        return names

    def cypher_params(self, value: Any) -> dict[str, Any]:
        """What the Cypher (and the embedded implementation) receives for the canonical `value`
        (None: an optional parameter left out, whose params are all null: `$name_key IS NULL`)."""
        if value is None:
            if self.type in ("entity", "name"):
                return {f"{self.name}_key": None, f"{self.name}_query": None}
            if self.type == "search":
                return {f"{self.name}_key": None}
            return {self.name: None}
        if self.type in ("entity", "name"):
            key = compact_key(value)
            return {f"{self.name}_key": key, f"{self.name}_query": fulltext_term(key)}
        if self.type == "search":
            return {f"{self.name}_key": compact_key(value)}
        if self.type == "entities":
            keys = [compact_key(v) for v in value]
            return {f"{self.name}_keys": keys, f"{self.name}_queries": [fulltext_term(k) for k in keys]}
        if self.type == "paper":
            return {self.name: value, f"{self.name}_query": fulltext_term(value)}
        if self.type == "collection":
            text = value.strip()
            cid = text if text.startswith("collection:") else collection_id(text)
            return {f"{self.name}_id": cid}
        return {self.name: value}


def fulltext_term(key: str) -> str:
    """`key` as a Lucene query that matches exactly the indexed term `key` and nothing else.

    The index uses the `keyword` analyzer, so each element of `keys` is one untouched term, and a
    quoted phrase is analysed into that one term (a term query). Inside quotes Lucene's classic query
    parser gives meaning only to `"` (end of phrase) and `\\` (escape), so escaping those two is
    enough for any key: `.`, `+`, `-`, `:`, `/`, `(`, `*`, `AND` and the like stay literal there.
    Compact keys contain no whitespace; the quotes would keep it literal too.
    """
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


# Characters Lucene's classic query parser gives a meaning to outside quotes (and whitespace, which
# compact keys do not hold): each is escaped with a backslash in a fuzzy term.
_LUCENE_SPECIAL = re.compile(r'([\\+\-!():^\[\]"{}~*?|&/\s])')


def fuzzy_term(key: str) -> str:
    """`key` as a Lucene fuzzy query `key~2`: the indexed terms within two edits of `key` (every
    special character escaped, so the key is matched literally), Neo4j's candidates for suggestions."""
    return _LUCENE_SPECIAL.sub(r"\\\1", key) + "~2"


def parse_param_line(text: str) -> Param:
    """Parse `NAME TYPE required|optional [default=V] [min=N] [max=N] example=VALUE...`.

    The example runs to the end of the line (names have spaces); it is JSON when it parses as JSON,
    else text, and must itself pass validation so every published example is runnable.
    """
    head, sep, example_text = text.partition(" example=")
    if not sep:
        raise ValueError(f"param line without example=: {text!r}")
    parts = head.split()
    if len(parts) < 3:
        raise ValueError(f"param line needs NAME TYPE required|optional: {text!r}")
    name, ptype, req = parts[:3]
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(f"bad param name {name!r}")
    if ptype not in PARAM_TYPES:
        raise ValueError(f"unknown param type {ptype!r} (known: {', '.join(PARAM_TYPES)})")
    if req not in ("required", "optional"):
        raise ValueError(f"expected required or optional, got {req!r}")
    options: dict[str, Any] = {}
    for opt in parts[3:]:
        key, eq, raw = opt.partition("=")
        if not eq or key not in ("default", "min", "max", "values"):
            raise ValueError(f"unknown param option {opt!r}")
        options[key] = tuple(raw.split("|")) if key == "values" else json.loads(raw)
    if (ptype == "choice") != bool(options.get("values")):
        raise ValueError(f"param {name!r}: a choice, and only a choice, lists its values=a|b")
    example_raw = example_text.strip()
    try:
        example: Any = json.loads(example_raw)
    except ValueError:
        example = example_raw
    if ptype not in ("int", "float") and not isinstance(example, list):
        example = example_raw   # `example=2024` on a name is the text "2024"
    param = Param(name=name, type=ptype, required=req == "required", example=example,
                  default=options.get("default"), min=options.get("min"), max=options.get("max"),
                  values=options.get("values", ()))
    if not param.required and param.default is None and ptype not in (
            "int", "float", "entity_type", "choice", "paper", "entity"):
        # An absent list or search has nothing to match: they would need a null-safe Cypher branch
        # (an optional entity has one: `$name_key IS NULL OR ...`).
        raise ValueError(f"optional {ptype} param {name!r} needs a default")
    if param.required and param.default is not None:
        raise ValueError(f"required param {name!r} cannot have a default")
    if param.default is not None:     # kept canonical: `default=0` on a float is 0.0
        param = dataclasses.replace(param, default=param.coerce(param.default))
    param.coerce(param.example)
    return param
