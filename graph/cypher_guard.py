"""The read-only guard for user-supplied Cypher on Neo4j.

Why a guard at all: READ routing and READ access mode are not access control a user can rely on
(a single server happily runs some things in read mode that are not harmless), and `LOAD CSV` or a
procedure can read files or reach the network while still counting as a "read". So user text passes
three independent checks before it runs:

1. `scan(text)` (no server): the Cypher lexer (`cypher_lexer`, shared with the embedded store)
   drops comments and string literals, then refuses write clauses (CREATE, MERGE, SET, DELETE,
   DETACH, REMOVE, FOREACH, INSERT), `LOAD` (LOAD CSV),
   `USE`, administration words (SHOW, GRANT, DENY, REVOKE, ALTER, DROP, RENAME, START, STOP, ...),
   `IN TRANSACTIONS`, `EXPLAIN`/`PROFILE` (the guard adds EXPLAIN itself), any identifier in the
   `apoc` or `dbms` namespaces, and `CALL` of any procedure except `db.labels`,
   `db.relationshipTypes` and `db.propertyKeys` (read-only `CALL { ... }` subqueries are allowed: their
   contents are scanned like the rest and EXPLAIN checks them). It is deliberately conservative: a
   variable or parameter named like one of those words is refused too; refusing a harmless query is
   acceptable, running a write is not. Neo4j's parser decodes `\\uXXXX` escapes *before* lexing (so
   `'\\u0027` closes a string), hence the text is scanned raw, decoded the way the parser does it, and
   fully decoded, and refused if any of the three is.
2. `EXPLAIN <text>` on the server: only `summary.query_type == "r"` is accepted (not "rw", "w" or "s").
3. The query then runs in a READ transaction (the server refuses writes there) with a timeout.

Before any of these, `check_limits` bounds the text itself (`QueryLimitError`, 422): Neo4j's parser
and semantic analysis recurse, and measured on the 5.26 test engine about 1,000 nested parentheses,
500 nested list brackets, 500 chained `NOT`s or 500 chained `.prop` accessors overflow its stack: the
request then hangs until the driver gives up (~120 s) and ends as a misleading "cannot reach Neo4j".
So the text is refused beyond MAX_QUERY_CHARS characters, MAX_TOKENS tokens, MAX_NESTING levels of
brackets and prefix `NOT`s, and MAX_CHAIN consecutive property accessors — each several times what a
hand-written query needs, each well below what breaks the server. Checked on every decoded variant
(`\\u0028` is a parenthesis to the parser).

Syntax errors and other Cypher errors become `BadInputError` with Neo4j's own message.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping
from typing import Any

from neo4j import Query, RoutingControl
from neo4j import exceptions as nex

from paperkg.graph.cypher_lexer import READ_ONLY_HINT, Token, tokenize
from paperkg.graph.errors import BadInputError, QueryLimitError, QueryRefusedError

DEFAULT_TIMEOUT = 10.0
# Bounds on the query text (see the module docstring): the HTTP body model allows the same length.
MAX_QUERY_CHARS = 20_000
MAX_TOKENS = 5_000
MAX_NESTING = 64
MAX_CHAIN = 32
ALLOWED_PROCEDURES = frozenset({"db.labels", "db.relationshipTypes", "db.propertyKeys"})

WRITE_KEYWORDS = frozenset({"CREATE", "MERGE", "SET", "DELETE", "DETACH", "NODETACH", "REMOVE",
                            "FOREACH", "INSERT"})
ADMIN_KEYWORDS = frozenset({"SHOW", "GRANT", "DENY", "REVOKE", "ALTER", "DROP", "RENAME", "TERMINATE",
                            "START", "STOP", "ENABLE", "DISABLE", "DEALLOCATE", "REALLOCATE", "DRYRUN",
                            "IMPERSONATE"})
FORBIDDEN_NAMESPACES = frozenset({"apoc", "dbms"})
QUERY_TYPES = {
    "w": "it writes to the graph",
    "rw": "it reads and writes the graph",
    "s": "it changes the schema or the DBMS (or calls a procedure that may)",
}

# JavaCC's unicode escape: a backslash (not itself escaped) followed by one or more `u` and 4 hex digits.
_UNICODE_ESCAPE = re.compile(r"\\+u+([0-9A-Fa-f]{4})")
_ANY_UNICODE_ESCAPE = re.compile(r"\\u+([0-9A-Fa-f]{4})")



def _refuse(why: str) -> QueryRefusedError:
    return QueryRefusedError(f"query refused: {why}", READ_ONLY_HINT)


def _scan_tokens(tokens: list[Token]) -> None:
    for k, tok in enumerate(tokens):
        if tok.kind in ("word", "param"):   # a parameter named like a keyword is refused too
            word = tok.text.upper()
            if word in WRITE_KEYWORDS:
                raise _refuse(f"{word} writes to the graph")
            if word == "LOAD":
                raise _refuse("LOAD CSV reads files or URLs")
            if word == "USE":
                raise _refuse("USE switches databases")
            if word in ADMIN_KEYWORDS:
                raise _refuse(f"administration commands ({word}) are not allowed")
            if word == "TRANSACTIONS":
                raise _refuse("CALL { ... } IN TRANSACTIONS is not allowed")
            if word in ("EXPLAIN", "PROFILE"):
                raise _refuse(f"{word} is not allowed (the guard runs EXPLAIN itself)")
            if word == "CALL":
                _check_call(tokens, k)
        if tok.kind in ("word", "param", "quoted"):
            parts = tok.text.split(".") if tok.kind == "quoted" else [tok.text]
            for part in parts:
                if part.strip().lower() in FORBIDDEN_NAMESPACES:
                    raise _refuse(f"the {part.strip().lower()}.* namespace is not allowed")


def _check_call(tokens: list[Token], k: int) -> None:
    """`CALL {`/`CALL (vars) {` is a subquery (allowed: its contents are scanned and EXPLAINed);
    anything else is a procedure, allowed only if it is exactly one of ALLOWED_PROCEDURES."""
    rest = tokens[k + 1:]
    if rest and rest[0].kind == "punct" and rest[0].text in "{(":
        return
    parts: list[str] = []
    j = 0
    while j < len(rest):
        tok = rest[j]
        if tok.kind == "quoted":
            raise _refuse(f"procedure names in backticks are not allowed (`{tok.text}`)")
        if tok.kind != "word":
            break
        parts.append(tok.text)
        if j + 1 < len(rest) and rest[j + 1].kind == "punct" and rest[j + 1].text == ".":
            j += 2
            continue
        break
    name = ".".join(parts)
    if name not in ALLOWED_PROCEDURES:
        allowed = ", ".join(sorted(ALLOWED_PROCEDURES))
        raise _refuse(f"CALL of procedure {name or '?'!r} is not allowed, only {allowed}")


def decode_like_parser(text: str) -> str:
    """Decode `\\uXXXX` escapes the way Neo4j's JavaCC parser does before lexing: an escape needs an
    odd number of backslashes in front of the `u` (an even run is escaped backslashes)."""

    def sub(m: re.Match[str]) -> str:
        run = m.group(0)
        slashes = len(run) - len(run.lstrip("\\"))
        if slashes % 2 == 0:
            return run
        return "\\" * (slashes - 1) + chr(int(m.group(1), 16))

    return _UNICODE_ESCAPE.sub(sub, text)


def decode_all(text: str) -> str:
    """Every `\\uXXXX` decoded, whatever precedes it (the most suspicious reading)."""
    return _ANY_UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


_LIMIT_HINT = "write the query more simply, or pass long values as $parameters"


def check_limits(text: str, tokens: list[Token] | None = None) -> None:
    """Refuse text beyond the size, token, nesting and chaining bounds (QueryLimitError, 422)."""
    if len(text) > MAX_QUERY_CHARS:
        raise QueryLimitError(f"the query is {len(text)} characters long; the limit is {MAX_QUERY_CHARS}",
                              _LIMIT_HINT)
    tokens = tokenize(text) if tokens is None else tokens
    if len(tokens) > MAX_TOKENS:
        raise QueryLimitError(f"the query has {len(tokens)} tokens; the limit is {MAX_TOKENS}", _LIMIT_HINT)
    # One frame per open bracket, counting the NOTs inside it: nesting is frames + their NOTs.
    nots: list[int] = [0]
    nesting, chain = 0, 0
    for k, tok in enumerate(tokens):
        if tok.kind == "punct" and tok.text in "([{":
            nots.append(0)
            nesting += 1
        elif tok.kind == "punct" and tok.text in ")]}" and len(nots) > 1:
            nesting -= 1 + nots.pop()
        elif tok.up == "NOT":
            nots[-1] += 1
            nesting += 1
        if nesting > MAX_NESTING:
            raise QueryLimitError(f"the query nests brackets and NOTs more than {MAX_NESTING} deep",
                                  _LIMIT_HINT)
        if tok.kind == "punct" and tok.text == "." and k + 1 < len(tokens) \
                and tokens[k + 1].kind in ("word", "quoted"):
            chain += 1
            if chain > MAX_CHAIN:
                raise QueryLimitError(f"the query chains more than {MAX_CHAIN} property accessors "
                                      "(a.b.c...)", _LIMIT_HINT)
        elif tok.kind not in ("word", "quoted") or k == 0 or tokens[k - 1].text != ".":
            chain = 0


def scan(text: str) -> None:
    """The server-free half of the guard; raises QueryRefusedError (message says why), or
    QueryLimitError for text beyond the bounds of `check_limits`."""
    if not text or not text.strip():
        raise BadInputError("the query is empty", "give a Cypher query such as MATCH (n) RETURN n LIMIT 5")
    if len(text) > MAX_QUERY_CHARS:      # before decoding or tokenizing anything that large
        check_limits(text, [])
    variants = dict.fromkeys([text, decode_like_parser(text), decode_all(text)])
    for variant in variants:
        tokens = tokenize(variant)
        check_limits(variant, tokens)
        _scan_tokens(tokens)


def check_read_only(runner: Any, text: str, params: Mapping[str, Any] | None = None, *,
                    database: str | None = None) -> None:
    """Refuse `text` unless it is read-only: `scan` first, then `EXPLAIN` on the server must report
    query type "r". `runner` is a neo4j Session (used as is) or Driver (`database` then names the
    database). Raises QueryRefusedError when refused, BadInputError on Cypher errors; connection
    failures propagate as driver errors for the caller to map."""
    scan(text)
    params = check_params(params)
    # EXPLAIN only plans, but planning a pathological query can be slow too: same time limit.
    explain = Query("EXPLAIN\n" + text, timeout=DEFAULT_TIMEOUT)  # type: ignore[arg-type]
    with map_query_error(DEFAULT_TIMEOUT):
        if hasattr(runner, "execute_query"):
            summary = runner.execute_query(explain, params, routing_=RoutingControl.READ,
                                           database_=database).summary
        else:
            summary = runner.run(explain, params).consume()
    query_type = summary.query_type
    if query_type != "r":
        why = QUERY_TYPES.get(str(query_type), f"its query type is {query_type!r}, not read-only")
        raise _refuse(why)


@contextlib.contextmanager
def map_query_error(timeout: float | None) -> Iterator[None]:
    """Cypher errors (syntax, types, missing parameters, timeouts) as BadInputError with Neo4j's
    message; connection and credential errors pass through to the store's own mapping."""
    try:
        yield
    except nex.Neo4jError as err:
        code = err.code or ""
        message = (getattr(err, "message", None) or str(err)).strip()
        if "TransactionTimedOut" in code:
            limit = f" of {timeout:g} s" if timeout else ""
            raise BadInputError(f"the query was stopped: it ran longer than the time limit{limit}",
                                "add a LIMIT or make the MATCH more selective") from err
        if code.startswith(("Neo.ClientError.Statement.", "Neo.ClientError.Procedure.",
                            "Neo.ClientError.Schema.")) or isinstance(err, nex.CypherSyntaxError):
            raise BadInputError(f"Neo4j rejected the query: {message}",
                                "fix the Cypher (see the message) and try again") from err
        raise
    except UnicodeError as err:
        raise BadInputError(f"cannot send the query text or parameters: {err}",
                            "remove lone surrogates and other invalid characters") from err


_SCALARS = (str, bool, int, float, type(None))


def check_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Query parameters as a dict, refusing values Neo4j cannot take (as BadInputError, before the
    driver raises a bare TypeError): scalars, lists and string-keyed maps of them."""
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise BadInputError("query parameters must be a mapping of names to values")

    def ok(value: Any) -> bool:
        if isinstance(value, _SCALARS):
            return not isinstance(value, int) or isinstance(value, bool) or -2**63 <= value < 2**63
        if isinstance(value, list | tuple):
            return all(ok(v) for v in value)
        if isinstance(value, Mapping):
            return all(isinstance(k, str) and ok(v) for k, v in value.items())
        return False

    for name, value in params.items():
        if not isinstance(name, str) or not ok(value):
            raise BadInputError(f"query parameter {name!r} has a value Neo4j cannot take: {value!r}"[:300],
                                "use strings, numbers, booleans, null, and lists or maps of them")
    return dict(params)
