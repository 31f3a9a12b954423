"""Rows as a person or a program reads them: an aligned table, TSV, CSV, JSON or JSON lines.

CSV goes through the `csv` module, so a name holding a comma, a quote or a line break stays one
cell (quoted, RFC 4180) instead of shifting every column after it. TSV, the default when stdout is
a pipe, is for `cut`, `awk` and `sort`, which know no quoting: nothing is quoted, and a backslash,
tab, line feed or carriage return inside a cell is written `\\`, `\t`, `\n`, `\r` (the text
format of PostgreSQL's COPY), so every line is one row and every tab ends a cell; a list cell reads
`["method:grpo"]`, not `"[""method:grpo""]"`. A cell that is a list or an object is written as
JSON; null is an empty cell in CSV/TSV and in the table. The table is
rich's, folded to the terminal's width (never when written to a file or pipe), with markup off
(`[CLS]` is a name, not a style).

Text outputs are read by terminals and spreadsheets, which both execute what they are given:
control characters (ESC, NUL, C1) are written escaped (`\\x1b`), so a title cannot clear the screen
or recolour it, and a CSV/TSV text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return
gets a leading `'` (OWASP's advice on CSV injection), so a spreadsheet shows it instead of running it
as a formula. Numbers are written as numbers: `-3` from an int needs no quote.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Sequence
from typing import Any, TextIO

FORMATS: tuple[str, ...] = ("table", "tsv", "csv", "json", "nl")

# C0 controls but tab and line feed (CSV quotes those; a table shows them), DEL and C1 controls.
_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Every column of the rows, in first-seen order (rows of one query share theirs)."""
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def cell(value: Any) -> str:
    """One value as the text of a CSV/TSV/table cell, its control characters escaped."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return escape_controls(value)
    if isinstance(value, list | dict):
        return escape_controls(json.dumps(value, ensure_ascii=False))
    return str(value)


def escape_controls(text: str) -> str:
    """`text` with each control character but tab and line feed written as its Python escape."""
    return _CONTROL_RE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def sheet_cell(value: Any) -> str:
    """One value as a CSV/TSV cell a spreadsheet opens as text: `cell`, with a `'` before text that
    a spreadsheet would read as a formula. Only text gets it: ints and floats are data."""
    text = cell(value)
    if isinstance(value, str) and text.startswith(_FORMULA_START):
        return "'" + text
    return text


def write_rows(rows: Sequence[dict[str, Any]], fmt: str, out: TextIO) -> None:
    """Write `rows` to `out` as `fmt` (one of FORMATS)."""
    if fmt == "json":
        out.write(json.dumps(list(rows), ensure_ascii=False) + "\n")
    elif fmt == "nl":
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    elif fmt == "tsv":
        _write_tsv(rows, out)
    elif fmt == "csv":
        names = columns(rows)
        writer = csv.writer(out, delimiter=",", lineterminator="\n")
        if names:
            writer.writerow(names)
        writer.writerows([sheet_cell(row.get(c)) for c in names] for row in rows)
    elif fmt == "table":
        _table(rows, out)
    else:
        raise ValueError(f"unknown output format {fmt!r} (one of {', '.join(FORMATS)})")


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def tsv_field(text: str) -> str:
    """`text` as one TSV field: backslash, tab, line feed and carriage return escaped, no quoting."""
    return text.translate(_TSV_ESCAPES)


def _write_tsv(rows: Sequence[dict[str, Any]], out: TextIO) -> None:
    names = columns(rows)
    if names:
        out.write("\t".join(tsv_field(n) for n in names) + "\n")
    for row in rows:
        out.write("\t".join(tsv_field(sheet_cell(row.get(c))) for c in names) + "\n")


def _table(rows: Sequence[dict[str, Any]], out: TextIO) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, header_style="bold", pad_edge=False)
    names = columns(rows)
    for name in names:
        numeric = all(isinstance(r.get(name), int | float) and not isinstance(r.get(name), bool)
                      for r in rows if r.get(name) is not None)
        table.add_column(name, justify="right" if numeric else "left", overflow="fold")
    for row in rows:
        table.add_row(*(cell(row.get(c)) for c in names))
    # a terminal: fold long cells to its width; a file or pipe (--table asked for): never fold
    width = None if getattr(out, "isatty", lambda: False)() else 100_000
    Console(file=out, width=width, highlight=False, markup=False, emoji=False, soft_wrap=False).print(table)
