"""The Neo4j store's statements: one `graph/*.cypher` file per operation, read from the package, and
the placeholders (`{label}`, `{type}`, ...) they carry for what Cypher cannot take as a parameter,
filled only from the closed sets of `graph/model.py`; and the schema those statements rely on."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from paperkg.graph.model import EDGE_TYPES, ENTITY_LABELS, NODE_LABELS

# Lucene's limit on one indexed term (IndexWriter.MAX_TERM_LENGTH, UTF-8 bytes). The full-text
# indexes of schema.cypher hold every entity key and paper id as one term; committing a longer one
# makes Neo4j 5.26 fail the whole database ("needs to be restarted"), so `save` refuses it first.
# The TEXT index's values have the same limit (measured: 32,766 bytes index, 32,767 fail the write).
MAX_TERM_BYTES = 32766
# The list properties those indexes hold, per label (must match schema.cypher).
FULLTEXT_LISTS = {**{label: "keys" for label in ENTITY_LABELS}, "Paper": "ids"}


# The properties the Neo4j store adds to a node beyond the graph's own (the reader drops them): a
# Paper's `caption` (its title, else its id: what Neo4j Browser shows on the node) and an entity's
# `keys_text`, its keys joined by spaces (no key holds one), the string the trigram TEXT index
# `paperkg_entity_keys_text` answers `CONTAINS $q_key` from (queries/entity_search.cypher).
STORE_ONLY_PROPS = {"Paper": ("caption",), **{label: ("keys_text",) for label in ENTITY_LABELS}}


def stored_props(label: str, node_id: str, props: dict) -> dict:
    """A node's properties as the Neo4j store writes them: its own, its `id`, and the STORE_ONLY_PROPS
    of its label (the same for the driver's writers and the bulk-import CSV)."""
    out = {**props, "id": node_id}
    if label == "Paper":
        out["caption"] = str(out.get("title") or node_id)
    elif label in ENTITY_LABELS and isinstance(out.get("keys"), list | tuple):
        out["keys_text"] = " ".join(out["keys"])
    return out


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@cache
def statement(name: str) -> str:
    """A statement file from the package, with its `//` comment lines removed (so a `;` or a
    placeholder in a comment never matters)."""
    text = resources.files("paperkg.graph").joinpath(f"{name}.cypher").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    return "\n".join(lines).strip()


def schema_statements() -> list[str]:
    """`schema.cypher` split on `;` (the file's statements hold no `;` inside a string literal)."""
    return [s.strip() for s in statement("schema").split(";") if s.strip()]


_SCHEMA_NAME = re.compile(r"^CREATE\s+(?:CONSTRAINT|(?:FULLTEXT\s+|RANGE\s+|TEXT\s+)?INDEX)\s+(\w+)\s", re.I)


@cache
def schema_index_names() -> frozenset[str]:
    """The names of the indexes `schema.cypher` creates (a constraint's backing index carries the
    constraint's name): what a database must have online before the catalog queries run."""
    names = {m.group(1) for m in map(_SCHEMA_NAME.match, schema_statements()) if m}
    if len(names) != len(schema_statements()):
        raise ValueError("every schema.cypher statement must be CREATE CONSTRAINT|INDEX <name> ...")
    return frozenset(names)


@cache
def lookup_index_names() -> frozenset[str]:
    """The indexes of `schema.cypher` that back no constraint (full-text, range): what a full save
    into an empty database may drop while it loads and create again after."""
    names = {m.group(1) for m in map(_SCHEMA_NAME.match, schema_statements())
             if m and "CONSTRAINT" not in m.group(0).upper()}
    return frozenset(name for name in names if _NAME.match(name))


@cache
def _checked(name: str, allowed: tuple[str, ...], what: str) -> str:
    if name not in allowed or not _NAME.match(name):
        raise ValueError(f"{what} {name!r} is not one of the paperkg {what}s {list(allowed)}")
    return name


def render(name: str, *, label: str | None = None, type: str | None = None,
           source_label: str | None = None, target_label: str | None = None) -> str:
    """Fill a statement's placeholders, only with names from the closed sets of `graph/model.py`.
    `{entity_label}` (node statements) becomes the shared `:Entity` label for the entity labels."""
    text = statement(name)
    if "{entity_label}" in text:
        text = text.replace("{entity_label}", ":Entity" if label in ENTITY_LABELS else "")
    for placeholder, value, allowed, what in (
        ("{label}", label, NODE_LABELS, "node label"),
        ("{source_label}", source_label, NODE_LABELS, "node label"),
        ("{target_label}", target_label, NODE_LABELS, "node label"),
        ("{type}", type, EDGE_TYPES, "relationship type"),
    ):
        if placeholder in text:
            if value is None:
                raise ValueError(f"statement {name} needs {placeholder}")
            text = text.replace(placeholder, _checked(value, allowed, what))
    return text
