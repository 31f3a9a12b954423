"""Readers that turn abstract files (collection text, JSON Lines, CSV, gzip, directories, stdin) into
`PaperInput` records.

Everything streams: files are read line by line and records are yielded as soon as they are parsed, so
a corpus larger than memory can be ingested. Bad input is the normal case for a tool fed by scrapers
and spreadsheets, so nothing here raises for it (except a missing path, checked before anything is
read so that a typo never half-ingests a batch): each problem goes to the caller's `report` callback
with the file and line, the bad record or file is skipped, and the good records still come through.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import gzip
import io
import itertools
import json
import os
import re
import stat
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import BinaryIO, TextIO

from pylatexenc.latex2text import LatexNodes2Text

from paperkg.graph.errors import InputNotFoundError
from paperkg.graph.normalize import paper_id_for
from paperkg.graph.records import PaperInput

__all__ = ["STDIN_SOURCE", "SUPPORTED_EXTENSIONS", "Problem", "format_for", "read_inputs"]

STDIN_SOURCE = "<stdin>"

# Extension (after an optional `.gz`) → format. `.json` is read as JSON Lines: the common tools that
# export "JSON" datasets one object per line (arXiv metadata, HF datasets) name them so.
SUPPORTED_EXTENSIONS: dict[str, str] = {
    ".txt": "text",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
}

GZIP_MAGIC = b"\x1f\x8b"
SNIFF_BYTES = 8192
# A physical line (or CSV field) beyond this is skipped with an error instead of being held in memory:
# it bounds what a file without newlines or a CSV with an unterminated quote can make us buffer.
# spaCy's default max_length is 1,000,000 characters, so real abstracts are far below it.
MAX_LINE_BYTES = 32 * 1024 * 1024
MAX_CSV_FIELD_CHARS = MAX_LINE_BYTES
# Beyond this many lines with invalid UTF-8 in one file, one summary warning replaces the rest
# (a Latin-1 file would otherwise print a warning per line).
MAX_DECODE_WARNINGS = 20
# An abstract has at least this many words: a stray token ("x", "TODO", "N/A") in an abstract field
# or a collection file is not one, and extracting it would only add an empty paper to the graph.
# The shortest real abstracts seen (seeds, arXiv sample, gold) have 55 words.
MIN_ABSTRACT_WORDS = 2

_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_AUTHOR_SPLIT_RE = re.compile(r"\s*[,;]\s*(?:and\s+)?|\s+and\s+")
_CONTROL_RE = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
# Control characters that are not whitespace (ESC, NUL, BEL, DEL, C1): in a title or a name they
# can only be damage or an attack on the terminal that shows them (`ESC[2J` clears the screen).
_NAME_CONTROL_RE = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]")
# In an id every control character counts, whitespace ones too: an id is compared as written.
_ID_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Problem:
    """Something wrong in the input that is reported but does not stop the run.

    `severity` is "error" when a record or file was skipped and "warning" when it was kept or nothing
    was lost (a text too short to be an abstract is skipped with a warning: it held no paper), so a
    caller can decide whether a run with problems still counts as a success.
    """

    source: str
    line: int | None
    message: str
    severity: str  # "warning" | "error"

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.message}"


def read_inputs(
    paths: Sequence[str],
    report: Callable[[Problem], None],
    stdin: TextIO | None = None,
) -> Iterator[PaperInput]:
    """Yield every abstract in `paths` (files, directories, or `-` for stdin), streaming.

    Missing paths are checked here, eagerly, before the iterator is returned, so that a typo in one
    argument fails the whole command before anything is ingested. Every other problem goes to
    `report` and reading goes on.
    """
    if isinstance(paths, (str, bytes)):
        raise TypeError("read_inputs() takes a sequence of paths, not a single path")
    names = [os.fspath(p) for p in paths]
    missing = [p for p in names if p != "-" and not os.path.exists(p)]
    if missing:
        raise InputNotFoundError(
            "input not found: " + ", ".join(missing), hint="check the path and try again"
        )
    return _iter_inputs(names, report, stdin)


# --------------------------------------------------------------------------------------------------
# Walking the arguments


def _iter_inputs(
    paths: list[str], report: Callable[[Problem], None], stdin: TextIO | None
) -> Iterator[PaperInput]:
    stdin_used = False
    for path in paths:
        if path == "-":
            if stdin_used:
                report(Problem(STDIN_SOURCE, None, "stdin given more than once; read once", "warning"))
                continue
            stdin_used = True
            yield from _read_stdin(stdin if stdin is not None else sys.stdin, report)
        elif os.path.isdir(path):
            yield from _read_directory(path, report)
        else:
            fmt = format_for(path)
            yield from _read_path(path, fmt, report, explicit=True)


def format_for(path: str) -> str | None:
    """The format a file name promises (`.gz` looked through), or None if it promises none."""
    name = os.path.basename(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return SUPPORTED_EXTENSIONS.get(os.path.splitext(name)[1])


def _read_directory(root: str, report: Callable[[Problem], None]) -> Iterator[PaperInput]:
    """Read supported files below `root` in sorted path order, so every run ingests alike."""
    files: list[str] = []

    def walk_error(err: OSError) -> None:
        report(Problem(err.filename or root, None, f"cannot list directory: {err.strerror}", "error"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=walk_error):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        files.extend(os.path.join(dirpath, f) for f in filenames if not f.startswith("."))
    files.sort()
    found = False
    for path in files:
        fmt = format_for(path)
        if fmt is None:
            report(Problem(path, None, "unsupported file type (want .txt, .jsonl, .ndjson, .json, "
                                       ".csv, optionally .gz), skipped", "warning"))
            continue
        found = True
        # A fifo or socket met while walking would block or fail in open(); given by name (as with
        # `<(zcat ...)`) it is read like any file.
        try:
            regular = stat.S_ISREG(os.stat(path).st_mode)
        except OSError as err:
            report(Problem(path, None, f"cannot open: {err.strerror or err}", "error"))
            continue
        if not regular:
            report(Problem(path, None, "not a regular file (fifo, socket or device), skipped", "error"))
            continue
        yield from _read_path(path, fmt, report, explicit=False)
    if not found:
        report(Problem(root, None, "no supported files in directory", "warning"))


# --------------------------------------------------------------------------------------------------
# Opening a source: gzip by magic bytes, binary sniffing, line decoding


class _Prefixed:
    """A read-only byte stream that serves bytes already consumed for sniffing before the rest.

    Sniffing must work on pipes (stdin), which cannot seek back.
    """

    def __init__(self, prefix: bytes, rest: BinaryIO) -> None:
        self._prefix = io.BytesIO(prefix)
        self._rest = rest

    def read(self, size: int = -1) -> bytes:
        data = self._prefix.read(size)
        if size < 0:
            return data + self._rest.read()
        if len(data) < size:
            data += self._rest.read(size - len(data))
        return data

    def readline(self, limit: int = -1) -> bytes:
        line = self._prefix.readline(limit)
        if line.endswith(b"\n") or (limit >= 0 and len(line) >= limit):
            return line
        return line + self._rest.readline(-1 if limit < 0 else limit - len(line))


def _read_exact(stream: BinaryIO | _Prefixed, size: int) -> bytes:
    chunks: list[bytes] = []
    got = 0
    while got < size:
        chunk = stream.read(size - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


class _Context:
    """Per-source bookkeeping: where problems are reported and whether anything came out."""

    def __init__(self, source: str, report: Callable[[Problem], None]) -> None:
        self.source = source
        self._report = report
        self.yielded = 0
        self.file_failed = False
        self.decode_warnings = 0
        self.line = 0  # last physical line read, for errors that end the source

    def warn(self, line: int | None, message: str) -> None:
        self._report(Problem(self.source, line, message, "warning"))

    def error(self, line: int | None, message: str) -> None:
        self._report(Problem(self.source, line, message, "error"))

    def fail(self, line: int | None, message: str) -> None:
        """An error that ends the whole source (nothing more can be read from it)."""
        self.file_failed = True
        self.error(line, message)


def _read_path(
    path: str, fmt: str | None, report: Callable[[Problem], None], explicit: bool
) -> Iterator[PaperInput]:
    ctx = _Context(path, report)
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed in the finally below, across yields
    except OSError as err:
        ctx.fail(None, f"cannot open: {err.strerror or err}")
        return
    try:
        yield from _read_binary(fh, fmt, ctx, unknown_type_warning=explicit and fmt is None)
    finally:
        fh.close()


def _read_stdin(stdin: TextIO, report: Callable[[Problem], None]) -> Iterator[PaperInput]:
    ctx = _Context(STDIN_SOURCE, report)
    buffer = getattr(stdin, "buffer", None)
    if buffer is not None:
        # The bytes underneath, so invalid UTF-8 is reported by line instead of raising mid-stream
        # (or turning into lone surrogates under a C locale's surrogateescape).
        yield from _read_binary(buffer, None, ctx, unknown_type_warning=False)
    else:
        yield from _read_text_stream(stdin, ctx)


def _read_binary(
    raw: BinaryIO, fmt: str | None, ctx: _Context, unknown_type_warning: bool
) -> Iterator[PaperInput]:
    try:
        magic = _read_exact(raw, 2)
        stream: BinaryIO | _Prefixed = _Prefixed(magic, raw)
        if magic == GZIP_MAGIC:
            stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[arg-type]
        head = _read_exact(stream, SNIFF_BYTES)
        why = _binary_reason(head)
        if why:
            ctx.fail(None, f"{why}; file skipped")
            return
        if fmt is None:
            fmt = _sniff(head.decode("utf-8", errors="replace"))
            if unknown_type_warning:
                ctx.warn(None, f"unknown file type; read as {_FORMAT_NAMES[fmt]} (from its content)")
        lines = _decoded_lines(_Prefixed(head, stream), ctx)  # type: ignore[arg-type]
        yield from _parse(fmt, lines, ctx)
    except (OSError, EOFError, zlib.error) as err:
        # Unreadable midway (I/O error, corrupt or truncated gzip): records already yielded stay.
        where = f" after line {ctx.line}" if ctx.line else ""
        ctx.fail(None, f"read failed{where}: {err}; rest of file skipped")
    _finish(ctx)


def _read_text_stream(stream: TextIO, ctx: _Context) -> Iterator[PaperInput]:
    """stdin that is already text (tests, embedding callers): no bytes to sniff, so look at lines."""
    try:
        head_lines: list[str] = []
        for text in stream:
            head_lines.append(text)
            if text.strip():
                break
        head = "".join(head_lines)
        if "\x00" in head:
            ctx.fail(None, "binary data (NUL characters); input skipped")
            return

        def numbered() -> Iterator[tuple[int, str]]:
            if head_lines:
                head_lines[0] = head_lines[0].lstrip("\ufeff")
            yield from enumerate(head_lines, 1)
            yield from enumerate(stream, len(head_lines) + 1)

        yield from _parse(_sniff(head), numbered(), ctx)
    except (OSError, UnicodeDecodeError) as err:
        ctx.fail(None, f"read failed: {err}; rest of input skipped")
    _finish(ctx)


def _finish(ctx: _Context) -> None:
    if ctx.decode_warnings > MAX_DECODE_WARNINGS:
        ctx.warn(None, f"{ctx.decode_warnings - MAX_DECODE_WARNINGS} more lines with invalid UTF-8 "
                       "(replaced with U+FFFD)")
    if ctx.yielded == 0 and not ctx.file_failed:
        ctx.warn(None, "no abstracts")


def _binary_reason(head: bytes) -> str | None:
    """Why the first bytes do not look like UTF-8 text, or None if they do."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "binary file: UTF-16 text is not supported, convert it to UTF-8"
    if b"\x00" in head:
        return "binary file (NUL bytes in the first 8 KB)"
    if not head:
        return None
    # final=False: a multi-byte character cut by the 8 KB boundary is not counted as bad.
    text = codecs.getincrementaldecoder("utf-8")(errors="replace").decode(head, final=False)
    # Text in a legacy encoding (Latin-1) has some undecodable bytes but few control characters;
    # random or compressed bytes have both in large numbers.
    controls = len(_CONTROL_RE.findall(text))
    replaced = text.count("\ufffd")
    if controls > max(8, len(text) // 20) or replaced > max(8, len(text) * 3 // 10):
        return "binary file (not text: control characters or undecodable bytes in the first 8 KB)"
    return None


_FORMAT_NAMES = {"text": "collection text", "jsonl": "JSON Lines", "csv": "CSV", "json-array": "JSON"}


def _sniff(head: str) -> str:
    """Guess a format from the first bytes: `{` → JSON Lines, a header with `abstract` → CSV,
    anything else → collection text."""
    start = head.lstrip("\ufeff \t\r\n")
    if start.startswith(("{", "[")):  # "[": a JSON array, which the JSON Lines parser explains
        return "jsonl"
    if "\n" in start:
        first = start.split("\n", 1)[0].rstrip("\r")
        try:
            header = next(csv.reader([first]))
        except (csv.Error, StopIteration):
            header = []
        if len(header) > 1 and "abstract" in (h.strip().lower() for h in header):
            return "csv"
    return "text"


def _decoded_lines(stream: _Prefixed, ctx: _Context) -> Iterator[tuple[int, str]]:
    """(line number, text with its line ending), decoding each line on its own so one bad byte
    costs one warning and a replacement character, not the file."""
    lineno = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        lineno += 1
        ctx.line = lineno
        if len(raw) > MAX_LINE_BYTES:
            while raw and not raw.endswith(b"\n"):
                raw = stream.readline(1024 * 1024)
            ctx.error(lineno, f"line longer than {MAX_LINE_BYTES} bytes, skipped")
            continue
        if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            text = raw.decode("utf-8", errors="replace")
            ctx.decode_warnings += 1
            if ctx.decode_warnings <= MAX_DECODE_WARNINGS:
                ctx.warn(lineno, f"invalid UTF-8 at byte {err.start} of the line; "
                                 "replaced with U+FFFD and kept")
        yield lineno, text


# --------------------------------------------------------------------------------------------------
# Formats


def _parse(fmt: str, lines: Iterator[tuple[int, str]], ctx: _Context) -> Iterator[PaperInput]:
    if fmt == "text":
        parser = _parse_stdin_text if ctx.source == STDIN_SOURCE else _parse_text
    elif fmt == "jsonl":
        parser = _parse_jsonl
    else:
        parser = _parse_csv
    for record in parser(lines, ctx):
        ctx.yielded += 1
        yield record


def _parse_text(lines: Iterable[tuple[int, str]], ctx: _Context) -> Iterator[PaperInput]:
    """Collection text: the first non-empty line names the collection, each further one is an
    abstract (the format of the seed files)."""
    collection: str | None = None
    for lineno, text in lines:
        text = text.strip()
        if not text:
            continue
        if collection is None:
            if _SURROGATE_RE.search(text):
                ctx.fail(lineno, "lone surrogate in the collection name; file skipped")
                return
            collection = _without_controls(text, "collection", ctx, lineno).strip()
            continue
        record = _build({"abstract": text, "collection": collection}, ctx, lineno)
        if record is not None:
            yield record


def _parse_stdin_text(lines: Iterable[tuple[int, str]], ctx: _Context) -> Iterator[PaperInput]:
    """Collection text on stdin, except that a single line is an abstract, with a warning: `echo
    "We propose ..." | paperkg build -` means that abstract, while a collection file of one line
    (a name, no abstracts) is never what anyone pipes in."""
    lines = iter(lines)
    head: list[tuple[int, str]] = []
    for item in lines:
        head.append(item)
        if sum(1 for _, text in head if text.strip()) == 2:
            break
    filled = [(lineno, text) for lineno, text in head if text.strip()]
    if len(filled) != 1:
        yield from _parse_text(itertools.chain(head, lines), ctx)     # streamed, never held whole
        return
    lineno, text = filled[0]
    ctx.warn(lineno, "a single line on stdin: read as one abstract, not as a collection name (to name "
                     "a collection, put its name on a line of its own before the abstracts)")
    record = _build({"abstract": text.strip()}, ctx, lineno)
    if record is not None:
        yield record


def _parse_jsonl(lines: Iterable[tuple[int, str]], ctx: _Context) -> Iterator[PaperInput]:
    first = True
    for lineno, text in lines:
        text = text.strip()
        if not text:
            continue
        if first:
            first = False
            if text.startswith("[") or text == "{":
                ctx.fail(lineno, "a JSON document, not JSON Lines (one object per line); "
                                 "convert it with `jq -c '.[]'` or `jq -c .`; file skipped")
                return
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as err:
            detail = getattr(err, "msg", None) or str(err)[:80] or type(err).__name__
            ctx.error(lineno, f"not valid JSON ({detail}), line skipped")
            continue
        if not isinstance(obj, dict):
            ctx.error(lineno, f"not a JSON object (got {_json_type(obj)}), line skipped")
            continue
        record = _build(obj, ctx, lineno)
        if record is not None:
            yield record


def _parse_csv(lines: Iterable[tuple[int, str]], ctx: _Context) -> Iterator[PaperInput]:
    """CSV with a header row; quoted fields may span lines, so records start where csv says."""
    # Process-wide setting; the default (128 KiB) is smaller than some real abstracts with LaTeX.
    csv.field_size_limit(MAX_CSV_FIELD_CHARS)
    row_start: list[int] = [0]  # line number of the first physical line of the current row
    last_line: list[int] = [0]

    def feed() -> Iterator[str]:
        for lineno, text in lines:
            if row_start[0] == 0:
                row_start[0] = lineno
            last_line[0] = lineno
            yield text

    reader = csv.reader(feed(), strict=True)
    header: list[str] | None = None
    columns: dict[str, int] = {}
    while True:
        row_start[0] = 0
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            line = row_start[0] or last_line[0]
            if "unexpected end of data" in str(err):
                ctx.error(line, "malformed CSV: quoted field never closed; rest of file skipped")
                return
            ctx.error(line, f"malformed CSV ({err}), row skipped")
            continue
        line = row_start[0] or last_line[0]
        if not row:
            continue
        if header is None:
            header = [h.strip().lower() for h in row]
            for i, name in enumerate(header):
                if name in columns and name in _FIELDS:
                    ctx.warn(line, f"duplicate column {name!r}; the first one is used")
                columns.setdefault(name, i)
            if "abstract" not in columns:
                ctx.fail(line, "CSV header has no 'abstract' column; file skipped")
                return
            continue
        if len(row) != len(header):
            ctx.error(line, f"row has {len(row)} fields, header has {len(header)}; row skipped")
            continue
        fields = {name: row[i] for name, i in columns.items() if name in _FIELDS and row[i] != ""}
        record = _build(fields, ctx, line)
        if record is not None:
            yield record


# --------------------------------------------------------------------------------------------------
# Fields → PaperInput

_FIELDS = frozenset({"abstract", "id", "title", "year", "venue", "collection", "authors", "url", "doi",
                     "categories", "versions", "update_date", "authors_parsed"})

# arXiv identifiers: new style `2401.12345` (YYMM.number) and old style `hep-th/9901001` (archive/YYMMnnn)
_ARXIV_NEW_RE = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}(?:v\d+)?$")
_ARXIV_OLD_RE = re.compile(r"^[a-z][a-z\-]*(?:\.[A-Z]{2})?/(\d{2})(\d{2})\d{3}(?:v\d+)?$")
_LATEX = LatexNodes2Text()
_LATEX_CHARS_RE = re.compile(r"[\\{}~$]")


def normalize_space(text: str) -> str:
    """Runs of whitespace (hard line breaks of arXiv abstracts, tabs, NBSP) as one space, so that no
    extracted name can hold a line break."""
    return " ".join(text.split())


def arxiv_year_from_id(rid: str | None) -> int | None:
    """`2401.12345` -> 2024, `hep-th/9901001` -> 1999 (arXiv started in 1991); None for other ids."""
    if not rid:
        return None
    m = _ARXIV_NEW_RE.match(rid) or _ARXIV_OLD_RE.match(rid)
    if m is None or not 1 <= int(m.group(2)) <= 12:
        return None
    yy = int(m.group(1))
    return (1900 if yy >= 91 else 2000) + yy


def is_arxiv_id(rid: str | None) -> bool:
    return arxiv_year_from_id(rid) is not None


def latex_to_unicode(name: str) -> str:
    """`Maldac\\'ena` -> `Maldacéna` (pylatexenc), whitespace normalised; names without LaTeX as they are."""
    if _LATEX_CHARS_RE.search(name):
        # pylatexenc on malformed LaTeX: keep the name as written
        with contextlib.suppress(Exception):
            name = _LATEX.latex_to_text(name)
    return normalize_space(name)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


def _build(fields: Mapping[str, object], ctx: _Context, line: int) -> PaperInput | None:
    """One record from its fields, or None after reporting why it cannot be used.

    Only the abstract is essential; a bad optional field is dropped with a warning so the paper
    still gets in.
    """
    if "abstract" not in fields or fields["abstract"] is None:
        ctx.error(line, "record has no 'abstract', skipped")
        return None
    abstract = fields["abstract"]
    if not isinstance(abstract, str):
        ctx.error(line, f"'abstract' is {_json_type(abstract)}, not a string; record skipped")
        return None
    as_read = abstract.strip()
    if not as_read:
        ctx.error(line, "empty 'abstract', record skipped")
        return None
    if "\x00" in as_read:
        ctx.error(line, "'abstract' contains NUL characters (binary data?); record skipped")
        return None
    abstract = normalize_space(as_read)
    words = len(abstract.split())
    if words < MIN_ABSTRACT_WORDS:
        ctx.warn(line, f"'abstract' is too short to be one ({words} word{'s' * (words != 1)}, "
                       f"want at least {MIN_ABSTRACT_WORDS}); record skipped")
        return None

    rid = _opt_id(fields.get("id"), ctx, line)
    if rid is not None and _ID_CONTROL_RE.search(rid):
        # Stripping would make `a\x1b` the paper `a` (or merge two papers whose ids differ only
        # there), so the record is refused and the user fixes the id.
        ctx.error(line, f"'id' {rid!r:.60} contains control characters ({_codepoints(rid, _ID_CONTROL_RE)}); "
                        "record skipped: fix the id in the input")
        return None
    title = _opt_str(fields, "title", ctx, line)
    if title is not None:
        title = normalize_space(title) or None
    collection = _opt_str(fields, "collection", ctx, line) or _opt_str(fields, "venue", ctx, line)
    url = _web_url(_opt_str(fields, "url", ctx, line), ctx, line)
    if url is None and is_arxiv_id(rid):
        url = f"https://arxiv.org/abs/{rid}"
    year = _opt_year(fields.get("year"), ctx, line)
    if year is None and "year" not in fields:
        year = _arxiv_year(fields, rid, ctx, line)
    authors = _opt_authors_parsed(fields.get("authors_parsed"), ctx, line) or _opt_authors(
        fields.get("authors"), ctx, line)
    doi = _opt_str(fields, "doi", ctx, line)
    categories = _opt_categories(fields.get("categories"), ctx, line)
    authors = tuple(a for a in (_without_controls(a, "authors", ctx, line) for a in authors) if a)
    categories = tuple(c for c in (_without_controls(c, "categories", ctx, line) for c in categories) if c)

    # Lone surrogates (JSON "\ud800" escapes) crash spaCy, the Neo4j driver and lxml downstream.
    for name, value in (("abstract", abstract), ("id", rid), ("title", title),
                        ("collection", collection), ("url", url), ("doi", doi),
                        *(("authors", a) for a in authors), *(("categories", c) for c in categories)):
        if value is not None and _SURROGATE_RE.search(value):
            ctx.error(line, f"lone surrogate (invalid Unicode) in {name!r}; record skipped")
            return None

    return PaperInput(
        id=rid or paper_id_for(as_read),
        abstract=abstract,
        source=ctx.source,
        line=line,
        collection=collection,
        title=title,
        year=year,
        authors=authors,
        url=url,
        doi=doi,
        categories=categories,
    )


def _arxiv_year(fields: Mapping[str, object], rid: str | None, ctx: _Context, line: int) -> int | None:
    """arXiv metadata's year: the first version's date (`versions[0].created`, RFC 2822), else
    `update_date` (ISO), else the arXiv id; None when none of them says."""
    versions = fields.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        created = versions[0].get("created")
        if isinstance(created, str):
            try:
                return parsedate_to_datetime(created).year
            except (TypeError, ValueError, IndexError):
                ctx.warn(line, f"bad 'versions[0].created' {created!r:.40}; year taken from elsewhere")
    updated = fields.get("update_date")
    if isinstance(updated, str) and re.match(r"^\d{4}-\d{2}-\d{2}", updated.strip()):
        return int(updated.strip()[:4])
    return arxiv_year_from_id(rid)


def _opt_authors_parsed(value: object, ctx: _Context, line: int) -> tuple[str, ...]:
    """arXiv's `authors_parsed`: [[last, first, suffix], ...] -> `first last suffix`, LaTeX as Unicode."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
            isinstance(p, list) and all(isinstance(x, str) for x in p) for p in value):
        ctx.warn(line, "'authors_parsed' is not a list of [last, first, suffix] lists; 'authors' used")
        return ()
    names = []
    for parts in value:
        last, first, suffix = ([*parts, "", "", ""])[:3]
        name = latex_to_unicode(" ".join(x for x in (first, last, suffix) if x.strip()))
        if name:
            names.append(name)
    return tuple(names)


def _opt_categories(value: object, ctx: _Context, line: int) -> tuple[str, ...]:
    """arXiv's space-separated `categories` string (`cs.LG stat.ML`), or a list of them."""
    if value is None:
        return ()
    if isinstance(value, str):
        parts = value.split()
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = [p for v in value for p in v.split()]
    else:
        ctx.warn(line, f"'categories' is {_json_type(value)}; ignored")
        return ()
    return tuple(dict.fromkeys(parts))


def _opt_id(value: object, ctx: _Context, line: int) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        ctx.warn(line, f"'id' is {_json_type(value)}; ignored, id taken from the abstract")
        return None
    return str(value).strip() or None


def _opt_str(fields: Mapping[str, object], name: str, ctx: _Context, line: int) -> str | None:
    value = fields.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        ctx.warn(line, f"{name!r} is {_json_type(value)}, not a string; ignored")
        return None
    return _without_controls(value, name, ctx, line).strip() or None


def _without_controls(value: str, name: str, ctx: _Context, line: int) -> str:
    """`value` without its non-whitespace control characters, with a warning naming them."""
    if not _NAME_CONTROL_RE.search(value):
        return value
    ctx.warn(line, f"control characters ({_codepoints(value, _NAME_CONTROL_RE)}) removed from {name!r}")
    return _NAME_CONTROL_RE.sub("", value)


def _codepoints(value: str, pattern: re.Pattern[str]) -> str:
    return ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(pattern.findall(value)))


_WEB_URL_RE = re.compile(r"https?://[^\s/?#]", re.IGNORECASE)


def _web_url(url: str | None, ctx: _Context, line: int) -> str | None:
    """`url` when it is an http(s) address, else None with a warning. The url becomes a link in the
    explorer and in exports: `javascript:`, `data:`, `vbscript:` or `file:` there would run or open
    whatever the input file says when someone clicks, so only web addresses are kept."""
    if url is None or _WEB_URL_RE.match(url):
        return url
    ctx.warn(line, f"'url' {url[:60]!r} is not an http(s) address; dropped")
    return None


def _opt_year(value: object, ctx: _Context, line: int) -> int | None:
    if value is None or value == "":
        return None
    year: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        year = value
    elif isinstance(value, float) and value.is_integer():
        year = int(value)
    elif isinstance(value, str) and value.strip().isdigit() and value.strip().isascii():
        year = int(value.strip())
    if year is None or not 1000 <= year <= 9999:
        ctx.warn(line, f"bad 'year' {value!r:.40}; ignored")
        return None
    return year


def _opt_authors(value: object, ctx: _Context, line: int) -> tuple[str, ...]:
    """A list of names, or arXiv's one string "A, B and C" (also `;`-separated)."""
    if value is None:
        return ()
    if isinstance(value, str):
        parts = _AUTHOR_SPLIT_RE.split(value.strip())
    elif isinstance(value, list):
        parts = [v for v in value if isinstance(v, str)]
        if len(parts) != len(value):
            ctx.warn(line, "'authors' has entries that are not strings; those ignored")
    else:
        ctx.warn(line, f"'authors' is {_json_type(value)}; ignored")
        return ()
    return tuple(name for name in (latex_to_unicode(p) for p in parts) if name)
