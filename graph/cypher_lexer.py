"""The one Cypher lexer: the read-only guard (`cypher_guard`) and the embedded store's grand-cypher
checks (`queries.embedded_cypher`) must agree on what is code, what is a string and what is a
comment, or a keyword could hide from one of them. Pure text, no driver import."""

from __future__ import annotations

import re
from dataclasses import dataclass

from paperkg.graph.errors import QueryRefusedError

READ_ONLY_HINT = ("only read-only queries run here: MATCH ... RETURN, or CALL db.labels, "
                  "db.relationshipTypes, db.propertyKeys")

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[^\W\d]\w*")
# A number never swallows letters: `1LOAD` is 1 then LOAD, so the keyword stays visible.
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*|\d+)")
_PUNCT2 = ("<>", "!=", "<=", ">=", "..", "=~")


@dataclass(frozen=True)
class Token:
    kind: str   # word (identifier or keyword), quoted (`name`), string, number, param ($name), punct
    text: str   # strings: the contents between the quotes; quoted: the name; param: the name
    start: int  # the token's span in the text, quotes, backticks and `$` included
    end: int

    @property
    def up(self) -> str:
        """A word upper-cased (keywords are case-insensitive); "" for every other kind."""
        return self.text.upper() if self.kind == "word" else ""


def tokenize(text: str) -> list[Token]:
    """Cypher tokens without comments; raises QueryRefusedError on an unterminated string, comment
    or quoted name (where a checker could disagree with the server about what is code). A `$` not
    followed by a parameter name is a punct token."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if m := _SPACE.match(text, i):
            i = m.end()
        elif text.startswith("//", i):
            i = _line_end(text, i)
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise QueryRefusedError("the query has an unterminated /* comment", READ_ONLY_HINT)
            i = end + 2
        elif ch in "'\"":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise QueryRefusedError("the query has an unterminated string literal", READ_ONLY_HINT)
            tokens.append(Token("string", text[i + 1:j], i, j + 1))
            i = j + 1
        elif ch == "`":
            j, parts = i + 1, []
            while True:
                end = text.find("`", j)
                if end < 0:
                    raise QueryRefusedError("the query has an unterminated `quoted` name", READ_ONLY_HINT)
                parts.append(text[j:end])
                if text.startswith("``", end):  # a doubled backtick is a backtick in the name
                    parts.append("`")
                    j = end + 2
                    continue
                break
            tokens.append(Token("quoted", "".join(parts), i, end + 1))
            i = end + 1
        elif ch == "$" and (m := _PARAM.match(text, i)):
            tokens.append(Token("param", m.group(1), i, m.end()))
            i = m.end()
        elif m := _WORD.match(text, i):
            tokens.append(Token("word", m.group(), i, m.end()))
            i = m.end()
        elif m := _NUMBER.match(text, i):
            tokens.append(Token("number", m.group(), i, m.end()))
            i = m.end()
        elif text[i:i + 2] in _PUNCT2:
            tokens.append(Token("punct", text[i:i + 2], i, i + 2))
            i += 2
        else:
            tokens.append(Token("punct", ch, i, i + 1))
            i += 1
    return tokens


def _line_end(text: str, start: int) -> int:
    ends = [e for e in (text.find("\n", start), text.find("\r", start)) if e >= 0]
    return min(ends) if ends else len(text)
