"""User Cypher on the embedded store, through grand-cypher, refusing what it would get wrong.

grand-cypher (1.2) runs a useful subset of Cypher over networkx, but some queries it parses give
answers that differ from Neo4j's without any error. Those are refused here *before* running, with
an `UnsupportedQueryError` that names the feature and points to the catalog or `--neo4j`; a wrong
answer is worse than no answer. Measured (tests/queries/test_embedded_cypher.py pins each case):

- a variable written `(d:Dataset)` in one pattern and `(d)` in a later one loses its label in
  grand-cypher; a repeated variable must be written the same way each time.
- node patterns: grand-cypher never binds two pattern nodes to one graph node, Neo4j does (it only
  keeps relationships distinct). `(a)-[:COMPARED_WITH]->(b)-[:COMPARED_WITH]->(c)` misses a = c, two
  MATCH clauses miss every shared node, `*1..k` paths never come back to a node. Patterns are accepted
  only when no two node variables can be one node: different labels, neighbours (our graphs have no
  self-loops), or both ends of one relationship type pointing the same way into a shared node (at
  most one edge of a type per direction between two nodes). Variable-length paths beyond one hop,
  undirected patterns (match only edges present both ways) and path variables are refused.
- null: `a <> b` is true when a property is missing (Neo4j: null, row dropped), `x.p = null` matches
  missing properties (Neo4j: never), `count(x.p)` counts missing values and `avg` divides by them;
  these are refused (`NOT a = b`, `x.p IS NULL`, `count(x)` say the same thing correctly).
- `a OR b AND c` is read as `(a OR b) AND c`: mixing AND and OR without parentheses is refused.
- `/` and `%` are Python's (5 / 2 = 2.5, -5 % 3 = 1), not Cypher's integer ones: refused.
- an aggregate over no rows returns no row: a row of count 0 / sum 0 / collect [] is supplied.
- missing features (parse errors otherwise): `$parameters` (substituted here, see below), OPTIONAL
  MATCH, WITH, UNWIND, UNION, CASE, EXISTS subqueries, count(*), DISTINCT inside aggregates,
  labels(), id(), IS NOT NULL, lower-case aggregate names (upper-cased here), single-quoted strings
  (rewritten here as the double-quoted literal of the same value, see `requote`).

Writes, LOAD CSV, CALL, USE and administration are refused with `QueryRefusedError` by the same
keyword scan the Neo4j guard uses (`graph.cypher_guard.scan`), so both stores refuse alike.

Parameters: grand-cypher has none, so `$name` is replaced by a literal of the given value: strings
as JSON-escaped double-quoted literals (grand-cypher reads a string token with Python's string
syntax, which JSON's escapes are a subset of, so the value comes back unchanged and cannot end the
literal early), finite numbers, booleans, null, and lists of those. A parameter that is not given
is a `BadInputError`. Maps are refused.

A new `GrandCypher` object is made per query: reusing one returns the first query's result again.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from paperkg.graph.cypher_lexer import Token, tokenize
from paperkg.graph.errors import BadInputError, QueryRefusedError, UnsupportedQueryError

HINT = ("use a catalog query (`paperkg query --list`) or run it on Neo4j (--neo4j URI), "
        "which supports full Cypher")
AGGREGATES = ("COUNT", "SUM", "AVG", "MIN", "MAX", "COLLECT")
_EMPTY_AGGREGATE = {"COUNT": 0, "SUM": 0, "COLLECT": [], "MIN": None, "MAX": None}
_UNSUPPORTED_WORDS = {
    "OPTIONAL": "OPTIONAL MATCH",
    "WITH": "WITH",
    "UNWIND": "UNWIND",
    "UNION": "UNION",
    "CASE": "CASE expressions",
    "EXISTS": "EXISTS subqueries",
    "XOR": "XOR",
}
_CLAUSE_WORDS = frozenset({"MATCH", "WHERE", "RETURN", "ORDER", "SKIP", "LIMIT"})


# --- parameters --------------------------------------------------------------------------------


def literal(value: Any, name: str) -> str:
    """`value` as a grand-cypher literal that reads back as exactly `value`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadInputError(f"parameter ${name} is {value!r}; only finite numbers are supported")
        return repr(value)
    if isinstance(value, str):
        if re.search("[\ud800-\udfff]", value):
            raise BadInputError(f"parameter ${name} contains a lone surrogate (invalid Unicode)")
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        if any(isinstance(v, list | tuple | dict) for v in value):
            raise UnsupportedQueryError(f"parameter ${name}: nested lists and maps are not supported "
                                        "on the embedded store", HINT)
        return "[" + ", ".join(literal(v, name) for v in value) + "]"
    raise UnsupportedQueryError(f"parameter ${name}: a {type(value).__name__} value is not supported "
                                "on the embedded store", HINT)


def substitute(text: str, toks: list[Token], params: dict[str, Any]) -> str:
    """The text with each `$name` replaced by the literal of `params[name]`."""
    out, last = [], 0
    for tok in toks:
        if tok.kind == "punct" and tok.text == "$":
            raise UnsupportedQueryError("only plain `$name` parameters are supported here", HINT)
        if tok.kind != "param":
            continue
        if tok.text not in params:
            raise BadInputError(f"the query uses ${tok.text} but no value was given",
                                f"add --param {tok.text}=VALUE")
        out.append(text[last:tok.start])
        out.append(literal(params[tok.text], tok.text))
        last = tok.end
    out.append(text[last:])
    return "".join(out)


# Cypher's string escapes (the same in single- and double-quoted strings)
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", re.DOTALL)
_ESCAPED = {"\\": "\\", "'": "'", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def string_value(raw: str) -> str:
    """The value of a Cypher string literal whose text between the quotes is `raw`."""
    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        if code[0] in "uU" and len(code) > 1:
            return chr(int(code[1:], 16))
        if code not in _ESCAPED:
            raise BadInputError(f"the query has an unknown escape \\{code} in a string",
                                "Cypher strings know \\\\, \\', \\\", \\n, \\t, \\r, \\b, \\f, \\uXXXX")
        return _ESCAPED[code]

    return _ESCAPE.sub(one, raw)


def requote(text: str, toks: list[Token]) -> str:
    """The text with every single-quoted string (`'GPT'`, the form most Cypher is written in) as the
    double-quoted literal grand-cypher reads (it has no single-quoted strings): its escapes decoded,
    then written as `literal` writes a parameter, so quotes and backslashes inside stay inside."""
    out, last = [], 0
    for tok in toks:
        if tok.kind == "string" and text[tok.start] == "'":
            out.append(text[last:tok.start])
            out.append(literal(string_value(tok.text), "string"))
            last = tok.end
    out.append(text[last:])
    return "".join(out)


# --- checks ------------------------------------------------------------------------------------


def _unsupported(feature: str, why: str = "") -> UnsupportedQueryError:
    detail = f" ({why})" if why else ""
    return UnsupportedQueryError(f"the embedded store cannot answer this query: {feature}{detail}", HINT)


def _closing(toks: list[Token], i: int) -> int:
    """Index of the bracket closing the one at `i`."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[str] = []
    for j in range(i, len(toks)):
        t = toks[j].text if toks[j].kind == "punct" else ""
        if t in pairs:
            stack.append(pairs[t])
        elif stack and t == stack[-1]:
            stack.pop()
            if not stack:
                return j
    raise BadInputError("the query has unbalanced brackets")


def check_tokens(text: str, toks: list[Token]) -> None:
    """Refuse features grand-cypher lacks or gets wrong (see the module docstring)."""
    for k, tok in enumerate(toks):
        prev = toks[k - 1] if k else None
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        after = toks[k + 2] if k + 2 < len(toks) else None
        is_property = prev is not None and prev.text == "."
        if tok.kind != "word" and tok.kind != "punct":
            continue
        word = tok.up
        if word == "CALL" and not is_property:
            raise QueryRefusedError("the CALL clause (procedures, db.labels() included) is not available "
                                    "on the embedded store", HINT)
        if word == "WITH" and prev is not None and prev.up in ("STARTS", "ENDS"):
            continue
        if word in _UNSUPPORTED_WORDS and not is_property:
            raise _unsupported(_UNSUPPORTED_WORDS[word])
        calls = nxt is not None and nxt.text == "("
        if calls and not is_property:
            if word == "LABELS":
                raise _unsupported("labels()", "match on a label or on the `type` property instead")
            if word in ("ID", "ELEMENTID"):
                raise _unsupported(f"{tok.text}()", "store-internal ids differ between stores; use n.id")
            if word == "AVG":
                raise _unsupported("avg()", "grand-cypher counts missing values as zeros")
            if word in AGGREGATES and after is not None:
                if after.text == "*":
                    raise _unsupported("count(*)", "count a variable instead: count(n)")
                if after.up == "DISTINCT":
                    raise _unsupported(f"{word.lower()}(DISTINCT ...)")
                if word == "COUNT":
                    close = _closing(toks, k + 1)
                    inner = toks[k + 2:close]
                    if len(inner) != 1 or inner[0].kind != "word":
                        raise _unsupported("count() of an expression",
                                           "grand-cypher counts missing values; count a variable: count(n)")
        if word == "IS" and nxt is not None and nxt.up == "NOT":
            raise _unsupported("IS NOT NULL", "write NOT x.prop IS NULL")
        if tok.text in ("<>", "!="):
            raise _unsupported(f"`{tok.text}`", "it is true for missing properties here; write NOT a = b")
        null_side = (nxt is not None and nxt.up == "NULL") or (prev is not None and prev.up == "NULL")
        if tok.text == "=" and null_side:
            raise _unsupported("`= null`", "it matches missing properties here; write x.prop IS NULL")
        if tok.text in ("/", "%"):
            raise _unsupported(f"the `{tok.text}` operator", "it is not Cypher's integer arithmetic here")
        if word == "RETURN" and nxt is not None and nxt.text == "*":
            raise _unsupported("RETURN *")
    _check_and_or(toks)


def _check_and_or(toks: list[Token]) -> None:
    """Refuse AND and OR mixed at one bracket level: grand-cypher has no precedence between them."""
    stack: list[set[str]] = [set()]
    for tok in toks:
        if tok.kind == "punct" and tok.text in "([{":
            stack.append(set())
        elif tok.kind == "punct" and tok.text in ")]}" and len(stack) > 1:
            stack.pop()
        elif tok.up in _CLAUSE_WORDS and len(stack) == 1:
            stack[0] = set()
        elif tok.up in ("AND", "OR"):
            stack[-1].add(tok.up)
            if len(stack[-1]) == 2:
                raise _unsupported("AND mixed with OR without parentheses",
                                   "grand-cypher does not give AND precedence over OR; add parentheses")


# --- patterns ----------------------------------------------------------------------------------


@dataclass
class _Rel:
    clause: int
    left: str
    right: str
    types: frozenset[str] | None
    pointing: str    # "right" (left -> right) or "left" (right -> left)


@dataclass
class _Patterns:
    labels: dict[str, frozenset[str] | None] = field(default_factory=dict)
    rels: list[_Rel] = field(default_factory=list)
    spelled: dict[str, str] = field(default_factory=dict)   # variable -> its `:Labels {props}` text


def _names(toks: list[Token], i: int, stop: str) -> tuple[frozenset[str], int]:
    """`A|B|C` (words or `quoted`) from i, up to a token in `stop`; returns the names and the end."""
    names = set()
    while i < len(toks) and toks[i].text not in stop:
        if toks[i].kind in ("word", "quoted"):
            names.add(toks[i].text)
        elif toks[i].text not in ("|", ":"):
            break
        i += 1
    return frozenset(names), i


def _parse_node(toks: list[Token], i: int, pats: _Patterns, anon: Iterator[int]) -> tuple[str, int]:
    close = _closing(toks, i)
    inner = toks[i + 1:close]
    var = f"#anon{next(anon)}"
    j = 0
    if j < len(inner) and inner[j].kind in ("word", "quoted"):
        var = inner[j].text
        j += 1
    labels: frozenset[str] | None = None
    if j < len(inner) and inner[j].text == ":":
        labels, _ = _names(inner, j + 1, "{")
    spelled = " ".join(t.text for t in inner[j:])
    if var in pats.labels and spelled != pats.spelled[var]:
        # grand-cypher keeps the last pattern's labels for a variable: `(d:Dataset) ... (d)` loses them
        raise _unsupported(f"`{var}` written with different labels or properties in two patterns",
                           "grand-cypher keeps only the last ones; repeat them exactly")
    pats.labels[var], pats.spelled[var] = labels, spelled
    return var, close + 1


def _parse_rel(toks: list[Token], i: int) -> tuple[frozenset[str] | None, str, int]:
    """A relationship between two node patterns from i (just after `)`); returns types, direction,
    and the index of the next node's `(`."""
    j = i
    left_arrow = toks[j].text == "<"
    if left_arrow:
        j += 1
    if toks[j].text != "-":
        raise BadInputError("the query has a malformed relationship pattern")
    j += 1
    types: frozenset[str] | None = None
    if toks[j].text == "[":
        close = _closing(toks, j)
        inner = toks[j + 1:close]
        k = 0
        if k < len(inner) and inner[k].kind in ("word", "quoted"):
            k += 1
        if k < len(inner) and inner[k].text == ":":
            types, k = _names(inner, k + 1, "*{")
        if k < len(inner) and inner[k].text == "*":
            hops = [t.text for t in inner[k + 1:] if t.kind == "number" or t.text == ".."]
            if hops not in (["1"], ["1", "..", "1"]):
                raise _unsupported("variable-length relationships",
                                   "grand-cypher never visits a node twice on a path, Neo4j does")
        j = close + 1
    if j >= len(toks) or toks[j].text != "-":
        raise BadInputError("the query has a malformed relationship pattern")
    j += 1
    right_arrow = j < len(toks) and toks[j].text == ">"
    if right_arrow:
        j += 1
    if left_arrow == right_arrow:
        raise _unsupported("undirected relationship patterns",
                           "grand-cypher matches only edges present in both directions; give a direction")
    return types, ("left" if left_arrow else "right"), j


def parse_patterns(toks: list[Token]) -> _Patterns:
    """The node variables (with label sets) and relationships of every MATCH clause."""
    pats = _Patterns()
    anon = iter(range(1_000_000))
    clause = -1
    k = 0
    while k < len(toks):
        if toks[k].up != "MATCH" or (k and toks[k - 1].text == "."):
            k += 1
            continue
        clause += 1
        k += 1
        if k + 1 < len(toks) and toks[k].kind == "word" and toks[k + 1].text == "=":
            raise _unsupported("path variables (p = ...)")
        if k >= len(toks) or toks[k].text != "(":
            raise BadInputError("MATCH must be followed by a node pattern")
        left, k = _parse_node(toks, k, pats, anon)
        while k < len(toks) and toks[k].text in ("-", "<"):
            types, pointing, k = _parse_rel(toks, k)
            if k >= len(toks) or toks[k].text != "(":
                raise BadInputError("a relationship pattern must end at a node pattern")
            right, k = _parse_node(toks, k, pats, anon)
            pats.rels.append(_Rel(clause, left, right, types, pointing))
            left = right
        if k < len(toks) and toks[k].text == ",":
            raise _unsupported("comma-separated patterns", "write one MATCH clause per pattern")
    return pats


def check_patterns(pats: _Patterns) -> None:
    """Refuse when two node variables could be bound to one node (see the module docstring)."""
    pairs = {frozenset((r.left, r.right)) for r in pats.rels}
    if any(len(p) == 1 for p in pairs) or len(pairs) < len(pats.rels):
        raise _unsupported("two relationships between the same two pattern nodes")
    names = sorted(pats.labels)
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            lx, ly = pats.labels[x], pats.labels[y]
            if lx is not None and ly is not None and not lx & ly:
                continue
            if frozenset((x, y)) in pairs or _same_way_into_shared_node(pats.rels, x, y):
                continue
            shown = [v if not v.startswith("#") else "(an unnamed node)" for v in (x, y)]
            raise _unsupported(
                f"`{shown[0]}` and `{shown[1]}` may be the same node",
                "Neo4j can bind both to one node, grand-cypher never does, so rows could be missing; "
                "give them different labels")


def _same_way_into_shared_node(rels: list[_Rel], x: str, y: str) -> bool:
    def ends(var: str) -> list[tuple[int, str, str, str]]:
        found = []
        for r in rels:
            if r.types is None or len(r.types) != 1:
                continue
            (rtype,) = r.types
            if r.left == var:
                found.append((r.clause, r.right, rtype, "in" if r.pointing == "right" else "out"))
            elif r.right == var:
                found.append((r.clause, r.left, rtype, "in" if r.pointing == "left" else "out"))
        return found

    return bool(set(ends(x)) & set(ends(y)))


# --- RETURN items ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReturnItem:
    column: str      # Neo4j's column name: the alias, else the expression as written
    lookup: str      # how to find it among grand-cypher's keys (normalised)
    aggregate: str   # COUNT/SUM/... when the item is one aggregate call, else ""


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


def return_items(text: str, toks: list[Token]) -> tuple[list[ReturnItem], bool]:
    """The RETURN clause's items and whether it has SKIP/LIMIT (which make an empty answer right)."""
    start = next((k for k, t in enumerate(toks) if t.up == "RETURN"), None)
    if start is None:
        raise BadInputError("the query has no RETURN clause")
    items: list[list[Token]] = [[]]
    depth = 0
    k = start + 1
    if k < len(toks) and toks[k].up == "DISTINCT":
        k += 1
    paged = False
    while k < len(toks):
        tok = toks[k]
        if tok.text in ("(", "[", "{"):
            depth += 1
        elif tok.text in (")", "]", "}"):
            depth -= 1
        if depth == 0 and tok.up in ("ORDER", "SKIP", "LIMIT"):
            paged = any(t.up in ("SKIP", "LIMIT") for t in toks[k:])
            break
        if depth == 0 and tok.text == ",":
            items.append([])
        else:
            items[-1].append(tok)
        k += 1
    result = []
    for item in items:
        if not item:
            raise BadInputError("the query has an empty RETURN item")
        alias = None
        if len(item) >= 3 and item[-2].up == "AS":
            alias = item[-1].text
            item = item[:-2]
        expr = text[item[0].start:item[-1].end]
        aggregate = ""
        if item[0].up in AGGREGATES and len(item) > 1 and item[1].text == "(" \
                and _closing(item, 1) == len(item) - 1:
            aggregate = item[0].up
        result.append(ReturnItem(alias or expr, _norm(alias or expr), aggregate))
    columns = [r.column for r in result]
    if len(set(columns)) != len(columns) or len({r.lookup for r in result}) != len(result):
        raise _unsupported("two RETURN items with the same name")
    return result, paged


# --- running -----------------------------------------------------------------------------------


def _upcase_aggregates(text: str, toks: list[Token]) -> str:
    """grand-cypher only knows COUNT, SUM, ... in upper case; Cypher's are case-insensitive."""
    out, last = [], 0
    for k, tok in enumerate(toks):
        if tok.up in AGGREGATES and tok.text != tok.up and k + 1 < len(toks) and toks[k + 1].text == "(" \
                and not (k and toks[k - 1].text == "."):
            out.append(text[last:tok.start])
            out.append(tok.up)
            last = tok.end
    out.append(text[last:])
    return "".join(out)


def plain(value: Any) -> Any:
    """A grand-cypher value as JSON-ready Python, shaped like the Neo4j store's `to_plain`:
    nodes and relationships as dicts of their properties."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items() if k != "__labels__"}
    if isinstance(value, set | frozenset):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def run_grand_cypher(g: nx.MultiDiGraph, text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Check, substitute parameters, run on a fresh GrandCypher, and return rows in RETURN order."""
    from paperkg.graph.cypher_guard import scan

    try:
        scan(text)                                # writes, LOAD CSV, CALL procedures, admin: refused
    except QueryRefusedError as err:
        raise QueryRefusedError(err.message, "the embedded store runs read-only MATCH ... RETURN "
                                "queries only") from err
    original, original_toks = text, tokenize(text)
    text = requote(text, original_toks)
    text = substitute(text, tokenize(text), params)
    toks = tokenize(text)
    try:
        check_tokens(text, toks)
        check_patterns(parse_patterns(toks))
        items, paged = return_items(text, toks)
    except IndexError as err:           # a pattern or call cut short at the end of the text
        raise BadInputError("the query ends in the middle of a pattern or expression") from err
    # Neo4j names a column by the expression as written (`$p` included), not as substituted.
    names = [i.column for i in return_items(original, original_toks)[0]]
    items = [ReturnItem(name, i.lookup, i.aggregate) for name, i in zip(names, items, strict=True)]
    text = _upcase_aggregates(text, toks)

    from grandcypher import GrandCypher
    from lark.exceptions import LarkError

    try:
        result = GrandCypher(g).run(text)
    except LarkError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise _unsupported("grand-cypher cannot parse it", first[:200]) from err
    except MemoryError:
        raise                   # the worker's memory budget (queries.bounded) says which limit
    except Exception as err:
        raise _unsupported("grand-cypher failed on it", f"{type(err).__name__}: {str(err)[:200]}") from err
    by_norm = {_norm(str(k)): v for k, v in result.items()}
    columns: list[list[Any]] = []
    for item in items:
        values = by_norm.get(item.lookup)
        if values is None:
            raise _unsupported(f"the result column {item.column!r}", "grand-cypher returned it under "
                               "another name; give the item an alias with AS")
        columns.append(list(values))
    n_rows = len(columns[0]) if columns else 0
    if any(len(c) != n_rows for c in columns):
        raise _unsupported("columns of different lengths in grand-cypher's answer")
    if n_rows == 0 and not paged and items and all(i.aggregate for i in items):
        return [{i.column: _EMPTY_AGGREGATE[i.aggregate] for i in items}]
    return [{item.column: plain(col[r]) for item, col in zip(items, columns, strict=True)}
            for r in range(n_rows)]
