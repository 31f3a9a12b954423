"""Readers: every format, the seed corpus, and the bad-input battery of issue 2 (items 2, 3, 8).

Inputs are real files written to tmp_path; each case states the exact records that must come out
and the exact problems (severity, line, words of the message) that must be reported.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
import socket
from collections import Counter
from pathlib import Path

import pytest

from paperkg.extract import readers
from paperkg.extract.readers import Problem, read_inputs
from paperkg.graph.errors import InputNotFoundError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "abstracts"

A1 = "We propose FooNet: a transformer for graphs."  # no comma: used unquoted in CSV
A2 = "BarBERT improves GLUE by 2 points over BERT."
A3 = "We study scaling laws on ImageNet."
LONG = " ".join(["word"] * 2000)  # longer than the sniffed head


def sha12(text: str) -> str:
    return hashlib.sha1(text.strip().encode("utf-8")).hexdigest()[:12]


def read(paths, stdin=None):
    problems: list[Problem] = []
    records = list(read_inputs([str(p) for p in paths], problems.append, stdin=stdin))
    return records, problems


def write(path: Path, content: bytes | str, gz: bool = False) -> Path:
    data = content.encode("utf-8") if isinstance(content, str) else content
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def jl(*objs) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def summary(problems):
    """(severity, line, message) per problem, for exact comparisons."""
    return [(p.severity, p.line, p.message) for p in problems]


def assert_problems(problems, expected):
    """`expected`: (severity, line, words that must all be in the message), in order."""
    assert len(problems) == len(expected), summary(problems)
    for got, (severity, line, words) in zip(problems, expected, strict=True):
        assert (got.severity, got.line) == (severity, line), summary(problems)
        for word in words:
            assert word in got.message, (word, got.message)


# --------------------------------------------------------------------------------------------------
# Formats

FULL = {"id": "2401.00001", "title": "  FooNet:\n  Graphs  ", "abstract": f"  {A1}\n",
        "authors": ["Ada Lovelace", " Alan Turing "], "year": 2024, "venue": "NeurIPS",
        "url": "https://example.org/foonet"}
FULL_EXPECTED = ("2401.00001", A1, "NeurIPS", "FooNet: Graphs", 2024, ("Ada Lovelace", "Alan Turing"),
                 "https://example.org/foonet")

CSV_TEXT = (
    "Title,ABSTRACT,id,year,venue,authors,url,extra\r\n"
    '"FooNet:\r\n  Graphs",  ' + A1 + ',2401.00001,2024,NeurIPS,"Ada Lovelace, Alan Turing",'
    "https://example.org/foonet,x\r\n"
    "\r\n"
    f',"{A2}\r\nSecond line.",,,,,,\r\n'
)

FORMAT_CASES = {
    "text": ("papers.txt", f"\ufeffMy Collection\n\n{A1}\n   \n  {A2}  \r\n{A3}",
             [(sha12(A1), A1, 3, "My Collection", None, None, (), None),
              (sha12(A2), A2, 5, "My Collection", None, None, (), None),
              (sha12(A3), A3, 6, "My Collection", None, None, (), None)]),
    "jsonl": ("papers.jsonl", "\n" + jl(FULL) + "\n" + jl({"abstract": A2}),
              [(FULL_EXPECTED[0], A1, 2, *FULL_EXPECTED[2:]),
               (sha12(A2), A2, 4, None, None, None, (), None)]),
    "ndjson": ("papers.ndjson", jl(FULL, {"abstract": A2, "collection": "C"}),
               [(FULL_EXPECTED[0], A1, 1, *FULL_EXPECTED[2:]),
                (sha12(A2), A2, 2, "C", None, None, (), None)]),
    "json": ("papers.JSON", jl({"abstract": A3, "id": 17}),
             [("17", A3, 1, None, None, None, (), None)]),
    # Header case-insensitive, a quoted title spanning lines, a blank line, a multi-line abstract (its
    # line break normalised to a space; the default id stays the hash of the abstract as read).
    "csv": ("papers.csv", CSV_TEXT,
            [(FULL_EXPECTED[0], A1, 2, *FULL_EXPECTED[2:]),
             (sha12(A2 + "\r\nSecond line."), A2 + " Second line.", 5, None, None, None, (), None)]),
}


def as_tuple(r):
    return (r.id, r.abstract, r.line, r.collection, r.title, r.year, r.authors, r.url)


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("case", sorted(FORMAT_CASES))
def test_each_format_plain_and_gzip(tmp_path, case, gz):
    name, content, expected = FORMAT_CASES[case]
    path = write(tmp_path / (name + (".gz" if gz else "")), content, gz=gz)
    records, problems = read([path])
    assert problems == []
    assert [as_tuple(r) for r in records] == expected
    assert {r.source for r in records} == {str(path)}


def test_gzip_detected_by_magic_bytes_without_gz_name(tmp_path):
    path = write(tmp_path / "papers.jsonl", jl({"abstract": A1}), gz=True)
    records, problems = read([path])
    assert [r.abstract for r in records] == [A1]
    assert problems == []


def test_unknown_extension_is_sniffed_with_a_warning(tmp_path):
    jsonl = write(tmp_path / "dump", jl({"abstract": A1}))
    text = write(tmp_path / "notes.md", f"Coll\n{A2}\n")
    csvf = write(tmp_path / "sheet.dat", f"id,abstract\nx1,{A3}\n")
    records, problems = read([jsonl, text, csvf])
    assert [(r.abstract, r.collection, r.id) for r in records] == [
        (A1, None, sha12(A1)), (A2, "Coll", sha12(A2)), (A3, None, "x1")]
    assert [(p.source, p.severity) for p in problems] == [
        (str(jsonl), "warning"), (str(text), "warning"), (str(csvf), "warning")]
    assert ["JSON Lines" in problems[0].message, "collection text" in problems[1].message,
            "CSV" in problems[2].message] == [True, True, True]


# --------------------------------------------------------------------------------------------------
# Fields

ARXIV = {
    "id": "0704.0001",
    "submitter": "Pavel Nadolsky",
    "authors": "C. Bal\\'azs, E. L. Berger, P. M. Nadolsky and C.-P. Yuan",
    "title": "Calculation of prompt diphoton production cross sections at Tevatron and\n  LHC energies",
    "comments": "37 pages, 15 figures; published version",
    "journal-ref": "Phys.Rev.D76:013009,2007",
    "doi": "10.1103/PhysRevD.76.013009",
    "report-no": "ANL-HEP-PR-07-12",
    "categories": "hep-ph",
    "license": None,
    "abstract": "  A fully differential calculation in perturbative quantum chromodynamics is\n"
                "presented for the production of massive photon pairs at hadron colliders.\n",
    "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}],
    "update_date": "2008-11-13",
    "authors_parsed": [["Balázs", "C.", ""], ["Berger", "E. L.", ""]],
}


def test_arxiv_metadata_jsonl_loads_as_is(tmp_path):
    records, problems = read([write(tmp_path / "arxiv-metadata.json", jl(ARXIV))])
    assert problems == []
    [r] = records
    assert r.id == "0704.0001"
    assert r.abstract == " ".join(ARXIV["abstract"].split())  # hard line breaks normalised (issue 12.6)
    assert r.title == "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    assert r.authors == ("C. Balázs", "E. L. Berger")  # authors_parsed wins over the authors string
    assert (r.collection, r.year, r.url) == (None, 2007, "https://arxiv.org/abs/0704.0001")
    assert (r.doi, r.categories) == ("10.1103/PhysRevD.76.013009", ("hep-ph",))
    # without authors_parsed, the authors string with its LaTeX turned into Unicode
    [r] = read([write(tmp_path / "b.json", jl({**ARXIV, "authors_parsed": None}))])[0]
    assert r.authors == ("C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C.-P. Yuan")


@pytest.mark.parametrize(
    ("fields", "expected", "warnings"),
    [
        ({"id": 42}, {"id": "42"}, []),
        ({"id": "  "}, {"id": sha12(A1)}, []),
        ({"id": None}, {"id": sha12(A1)}, []),
        ({"id": ["x"]}, {"id": sha12(A1)}, ["'id'"]),
        ({"year": "2021"}, {"year": 2021}, []),
        ({"year": 2021.0}, {"year": 2021}, []),
        ({"year": "n/a"}, {"year": None}, ["'year'"]),
        ({"year": 20210}, {"year": None}, ["'year'"]),
        ({"year": True}, {"year": None}, ["'year'"]),
        ({"authors": "A, B and C"}, {"authors": ("A", "B", "C")}, []),
        ({"authors": "A; B, and C"}, {"authors": ("A", "B", "C")}, []),
        ({"authors": "Sandra Anderson and Andy Brand"}, {"authors": ("Sandra Anderson", "Andy Brand")}, []),
        ({"authors": ["A", 3, "B"]}, {"authors": ("A", "B")}, ["'authors'"]),
        ({"authors": {"name": "A"}}, {"authors": ()}, ["'authors'"]),
        ({"venue": "ICML"}, {"collection": "ICML"}, []),
        ({"venue": "ICML", "collection": "Mine"}, {"collection": "Mine"}, []),
        ({"collection": 5}, {"collection": None}, ["'collection'"]),
        ({"title": "  A\n  title "}, {"title": "A title"}, []),
        ({"title": ""}, {"title": None}, []),
        ({"url": " http://x.org "}, {"url": "http://x.org"}, []),
    ],
)
def test_optional_fields(tmp_path, fields, expected, warnings):
    path = write(tmp_path / "f.jsonl", jl({"abstract": A1, **fields}))
    records, problems = read([path])
    [r] = records
    for name, value in expected.items():
        assert getattr(r, name) == value
    assert_problems(problems, [("warning", 1, [w]) for w in warnings])


def test_default_id_is_sha1_prefix_of_stripped_abstract(tmp_path):
    path = write(tmp_path / "c.txt", f"C\n \t{A1}  \n")
    [r] = read([path])[0]
    assert r.id == hashlib.sha1(A1.encode("utf-8")).hexdigest()[:12]
    assert len(r.id) == 12


def test_same_text_in_two_formats_gets_the_same_id(tmp_path):
    t = write(tmp_path / "a.txt", f"C\n{A1}\n")
    j = write(tmp_path / "b.jsonl", jl({"abstract": A1 + "  "}))
    c = write(tmp_path / "c.csv", f"abstract\n{A1}\n")
    records, problems = read([t, j, c])
    assert problems == []
    assert [r.id for r in records] == [sha12(A1)] * 3


# --------------------------------------------------------------------------------------------------
# The seed corpus


def test_seed_examples():
    files = sorted(EXAMPLES.glob("*.txt"))
    assert len(files) == 4
    records, problems = read([EXAMPLES])
    assert problems == []
    assert len(records) == 278
    assert len({r.abstract for r in records}) == 250
    assert len({r.id for r in records}) == 250
    assert Counter(r.collection for r in records) == {"NeurIPS 2026 Papers": 38, "Daily Papers": 240}
    unique = {(r.collection, r.id) for r in records}
    assert Counter(c for c, _ in unique) == {"NeurIPS 2026 Papers": 38, "Daily Papers": 212}
    assert [r.source for r in records] == sorted(r.source for r in records)  # files in sorted order
    # Every record points at the physical line it came from.
    for r in records[::25]:
        lines = Path(r.source).read_text(encoding="utf-8").split("\n")
        assert lines[r.line - 1].strip() == r.abstract
    # Reading the files one by one gives the same records as reading the directory.
    one_by_one = [r for f in files for r in read([f])[0]]
    assert [as_tuple(r) for r in one_by_one] == [as_tuple(r) for r in records]


# --------------------------------------------------------------------------------------------------
# Directories


def test_directory_recursive_sorted_hidden_skipped_unsupported_warned(tmp_path):
    d = tmp_path / "in"
    write(d / "b.txt", f"B\n{A2}\n")
    write(d / "a.jsonl", jl({"abstract": A1}))
    write(d / "sub" / "c.csv.gz", f"abstract\n{A3}\n", gz=True)
    write(d / ".hidden.txt", "H\nhidden abstract\n")
    write(d / ".git" / "x.txt", "H\nhidden dir abstract\n")
    write(d / "README.md", "not an input")
    records, problems = read([d])
    assert [(r.abstract, os.path.relpath(r.source, d)) for r in records] == [
        (A1, "a.jsonl"), (A2, "b.txt"), (A3, os.path.join("sub", "c.csv.gz"))]
    assert_problems(problems, [("warning", None, ["unsupported"])])
    assert problems[0].source == str(d / "README.md")


def test_directory_without_supported_files_warns(tmp_path):
    write(tmp_path / "d" / "x.pdf", b"%PDF-1.4")
    records, problems = read([tmp_path / "d"])
    assert records == []
    assert [(p.severity, p.source.endswith(s)) for p, s in zip(problems, ["x.pdf", "d"], strict=True)] == [
        ("warning", True), ("warning", True)]
    assert "no supported files" in problems[1].message


def test_directory_mixing_good_and_bad_files(tmp_path):
    d = tmp_path / "mixed"
    write(d / "01_good.txt", f"Good\n{A1}\n")
    write(d / "02_empty.jsonl", "")
    write(d / "03_binary.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    write(d / "04_junk.jsonl", jl({"abstract": A2}) + "{oops\n" + jl({"title": "no abstract"}))
    write(d / "05_latin1.txt", "Coll\nUn r\xe9sum\xe9 en fran\xe7ais.\n".encode("latin-1"))
    write(d / "06_surrogate.jsonl", '{"abstract": "bad \\ud800 text"}\n' + jl({"abstract": A3}))
    write(d / "07_nocol.csv", "title,year\nT,2020\n")
    write(d / "08_unsupported.docx", b"PK\x03\x04")
    records, problems = read([d])
    assert [(Path(r.source).name, r.abstract) for r in records] == [
        ("01_good.txt", A1), ("04_junk.jsonl", A2),
        ("05_latin1.txt", "Un r\ufffdsum\ufffd en fran\ufffdais."), ("06_surrogate.jsonl", A3)]
    got = [(Path(p.source).name, p.line, p.severity) for p in problems]
    assert got == [
        ("02_empty.jsonl", None, "warning"),
        ("03_binary.txt", None, "error"),
        ("04_junk.jsonl", 2, "error"),
        ("04_junk.jsonl", 3, "error"),
        ("05_latin1.txt", 2, "warning"),
        ("06_surrogate.jsonl", 1, "error"),
        ("07_nocol.csv", 1, "error"),
        ("08_unsupported.docx", None, "warning"),
    ]


# --------------------------------------------------------------------------------------------------
# stdin


def text_stdin(content: str) -> io.StringIO:
    return io.StringIO(content)


def byte_stdin(content: bytes | str, gz: bool = False) -> io.TextIOWrapper:
    data = content.encode("utf-8") if isinstance(content, str) else content
    return io.TextIOWrapper(io.BytesIO(gzip.compress(data) if gz else data), encoding="utf-8")


STDIN_CASES = {
    "text": (f"\n\nColl\n{A1}\n{A2}\n", [(A1, 4, "Coll"), (A2, 5, "Coll")]),
    "jsonl": ("\n" + jl({"abstract": A1, "venue": "V"}, {"abstract": A2}), [(A1, 2, "V"), (A2, 3, None)]),
    "csv": (f"id,abstract\nk1,{A1}\nk2,\"{A2}\"\n", [(A1, 2, None), (A2, 3, None)]),
}


@pytest.mark.parametrize("kind", ["text-io", "bytes", "gzip-bytes"])
@pytest.mark.parametrize("case", sorted(STDIN_CASES))
def test_stdin_sniffs_format(case, kind):
    content, expected = STDIN_CASES[case]
    stdin = {"text-io": lambda: text_stdin(content), "bytes": lambda: byte_stdin(content),
             "gzip-bytes": lambda: byte_stdin(content, gz=True)}[kind]()
    records, problems = read(["-"], stdin=stdin)
    assert problems == []
    assert [(r.abstract, r.line, r.collection) for r in records] == expected
    assert {r.source for r in records} == {"<stdin>"}


@pytest.mark.parametrize("kind", ["text-io", "bytes"])
def test_one_line_on_stdin_is_an_abstract_with_a_warning(kind):
    """`echo "We propose ..." | paperkg build -` means that abstract, not a collection of none."""
    content = f"\n{A1}\n"
    records, problems = read(["-"], stdin=text_stdin(content) if kind == "text-io" else byte_stdin(content))
    assert [(r.abstract, r.line, r.collection) for r in records] == [(A1, 2, None)]
    assert_problems(problems, [("warning", 2, ["single line on stdin", "one abstract"])])


def test_only_web_urls_are_kept():
    """A url becomes a link: anything but http(s) is dropped at read time, with a warning."""
    urls = ["javascript:alert(1)", " JaVaScRiPt:alert(1)", "data:text/html,<script>alert(1)</script>",
            "vbscript:msgbox(1)", "file:///etc/passwd", "//evil.example/x", "http:/x",
            "https://arxiv.org/abs/2401.00001", "HTTP://example.org/p?q=1"]
    content = "".join(json.dumps({"abstract": f"{A1} ({i})", "url": u}) + "\n" for i, u in enumerate(urls))
    records, problems = read(["-"], stdin=text_stdin(content))
    assert [r.url for r in records] == [None] * 7 + urls[7:]
    assert_problems(problems, [("warning", i + 1, ["not an http(s) address", "dropped"]) for i in range(7)])


def test_stdin_invalid_utf8_and_binary():
    records, problems = read(["-"], stdin=byte_stdin(b"C\nna\xefve abstract\n"))
    assert [r.abstract for r in records] == ["na\ufffdve abstract"]
    assert_problems(problems, [("warning", 2, ["invalid UTF-8"])])
    assert str(problems[0]).startswith("<stdin>:2: ")
    records, problems = read(["-"], stdin=byte_stdin(b"\x00\x01\x02binary"))
    assert records == []
    assert_problems(problems, [("error", None, ["binary"])])


def test_stdin_between_files_and_given_twice(tmp_path):
    f = write(tmp_path / "a.jsonl", jl({"abstract": A1}))
    records, problems = read([f, "-", "-"], stdin=text_stdin(f"C\n{A2}\n"))
    assert [(r.abstract, r.source) for r in records] == [(A1, str(f)), (A2, "<stdin>")]
    assert_problems(problems, [("warning", None, ["more than once"])])


@pytest.mark.parametrize("make", [text_stdin, byte_stdin], ids=["text-io", "bytes"])
def test_stdin_json_array_is_an_error_not_a_collection(make):
    records, problems = read(["-"], stdin=make(json.dumps([{"abstract": A1}], indent=2)))
    assert records == []
    assert_problems(problems, [("error", 1, ["not JSON Lines"])])


def test_stdin_empty_warns():
    records, problems = read(["-"], stdin=text_stdin(""))
    assert records == []
    assert_problems(problems, [("warning", None, ["no abstracts"])])


# --------------------------------------------------------------------------------------------------
# Missing paths


def test_missing_path_raises_before_anything_is_read(tmp_path):
    good = write(tmp_path / "good.txt", f"C\n{A1}\n")
    missing = tmp_path / "nope.jsonl"
    problems: list[Problem] = []
    with pytest.raises(InputNotFoundError) as info:
        read_inputs([str(good), str(missing)], problems.append)  # raises at the call, not later
    assert str(missing) in str(info.value)
    assert str(good) not in info.value.message
    assert problems == []


def test_all_missing_paths_are_named(tmp_path):
    with pytest.raises(InputNotFoundError) as info:
        read_inputs(["x1.txt", "-", "x2.csv"], lambda p: None)
    assert "x1.txt" in str(info.value) and "x2.csv" in str(info.value)


def test_single_string_instead_of_sequence_is_a_type_error(tmp_path):
    with pytest.raises(TypeError):
        read_inputs(str(tmp_path), lambda p: None)


# --------------------------------------------------------------------------------------------------
# The bad-input battery: (file name, bytes, abstracts that must come out, problems that must be reported)

DEEP = "[" * 100_000 + "]" * 100_000
BATTERY = {
    "empty txt": ("e.txt", b"", [], [("warning", None, ["no abstracts"])]),
    "empty jsonl": ("e.jsonl", b"", [], [("warning", None, ["no abstracts"])]),
    "empty csv": ("e.csv", b"", [], [("warning", None, ["no abstracts"])]),
    "empty gz": ("e.jsonl.gz", gzip.compress(b""), [], [("warning", None, ["no abstracts"])]),
    "blank lines only": ("e.txt", b"\n  \n\t\n", [], [("warning", None, ["no abstracts"])]),
    "collection name only": ("e.txt", b"Just A Name\n", [], [("warning", None, ["no abstracts"])]),
    "csv header only": ("e.csv", b"id,abstract\n", [], [("warning", None, ["no abstracts"])]),
    "binary NUL": ("b.txt", b"C\nabc\x00def\n", [], [("error", None, ["binary", "NUL"])]),
    "binary png as jsonl": ("b.jsonl", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", [],
                            [("error", None, ["binary"])]),
    "binary no NUL": ("b.csv", bytes(range(1, 32)) * 40 + bytes(range(128, 256)) * 20, [],
                      [("error", None, ["binary", "not text"])]),
    "utf-16": ("u.txt", "C\nAn abstract.\n".encode("utf-16"), [], [("error", None, ["UTF-16"])]),
    "invalid utf-8 txt": ("i.txt", b"C\n" + A1.encode() + b"\nbad \xff\xfe byte\n",
                          [A1, "bad \ufffd\ufffd byte"], [("warning", 3, ["invalid UTF-8"])]),
    "invalid utf-8 jsonl": ("i.jsonl", b'{"abstract": "caf\xe9 au lait"}\n',
                            ["caf\ufffd au lait"], [("warning", 1, ["invalid UTF-8"])]),
    "bom": ("bom.jsonl", b"\xef\xbb\xbf" + jl({"abstract": A1}).encode(), [A1], []),
    "lone surrogate": ("s.jsonl", (jl({"abstract": A1}) + '{"abstract": "x \\ud800 y"}\n'
                                   + '{"abstract": "fine text", "title": "t \\udfff"}\n'
                                   + jl({"abstract": A2})).encode(),
                       [A1, A2], [("error", 2, ["surrogate", "'abstract'"]),
                                  ("error", 3, ["surrogate", "'title'"])]),
    "valid surrogate pair": ("p.jsonl", b'{"abstract": "emoji \\ud83d\\ude00 ok"}\n',
                             ["emoji \U0001f600 ok"], []),
    "jsonl junk and missing fields": (
        "j.jsonl",
        (jl({"abstract": A1})
         + "this is not json\n"                      # 2
         + "[1, 2]\n"                                # 3
         + '{"title": "no abstract"}\n'              # 4
         + '{"abstract": "   "}\n'                   # 5
         + '{"abstract": 5}\n'                       # 6
         + '{"abstract": null}\n'                    # 7
         + "\n"                                      # 8 (blank: ignored)
         + '{"abstract": "truncated\n'               # 9
         + f"{DEEP}\n"                               # 10
         + '"just a string"\n'                       # 11
         + jl({"abstract": A2})).encode(),           # 12
        [A1, A2],
        [("error", 2, ["not valid JSON"]), ("error", 3, ["not a JSON object", "array"]),
         ("error", 4, ["no 'abstract'"]), ("error", 5, ["empty 'abstract'"]),
         ("error", 6, ["'abstract'", "number"]), ("error", 7, ["no 'abstract'"]),
         ("error", 9, ["not valid JSON"]), ("error", 10, ["not valid JSON"]),
         ("error", 11, ["not a JSON object", "string"])]),
    "json array": ("a.json", json.dumps([{"abstract": A1}], indent=1).encode(), [],
                   [("error", 1, ["not JSON Lines", "jq"])]),
    "pretty json object": ("o.json", json.dumps({"abstract": A1}, indent=1).encode(), [],
                           [("error", 1, ["not JSON Lines"])]),
    "nul inside a record after the sniffed head": (
        "n.jsonl",
        (jl({"abstract": LONG}) + '{"abstract": "a\\u0000b"}\n' + jl({"abstract": A1})).encode(),
        [LONG, A1], [("error", 2, ["NUL"])]),
    "too short to be an abstract": ("t.jsonl", (jl({"abstract": "x"}) + jl({"abstract": A1})
                                                + jl({"abstract": " N/A  "})).encode(),
                                    [A1], [("warning", 1, ["too short", "1 word"]),
                                           ("warning", 3, ["too short"])]),
    "too short in a collection file": ("t.txt", f"C\nx\n{A2}\n".encode(), [A2],
                                       [("warning", 2, ["too short"])]),
    "csv without abstract column": ("c.csv", b"title,summary\nT,S\n", [],
                                    [("error", 1, ["no 'abstract' column"])]),
    "csv bad quoting row": ("c.csv", f'id,abstract\n1,{A1}\n2,"bad"quote\n3,{A2}\n'.encode(),
                            [A1, A2], [("error", 3, ["malformed CSV"])]),
    "csv wrong field count": ("c.csv", f'id,abstract\n1,{A1}\n2,{A2},extra\n3\n4,{A3}\n'.encode(),
                              [A1, A3], [("error", 3, ["3 fields", "header has 2"]),
                                         ("error", 4, ["1 fields"])]),
    "csv empty abstract cell": ("c.csv", f'id,abstract\n1,\n2,{A2}\n'.encode(), [A2],
                                [("error", 2, ["no 'abstract'"])]),
    "csv unterminated quote": ("c.csv", f'id,abstract\n1,{A1}\n2,"never closed\n3,{A2}\n'.encode(),
                               [A1], [("error", 3, ["never closed"])]),
}


@pytest.mark.parametrize("case", list(BATTERY))
def test_bad_input_battery(tmp_path, case):
    name, data, good, expected = BATTERY[case]
    path = write(tmp_path / name, data)
    records, problems = read([path])
    assert [r.abstract for r in records] == good
    assert_problems(problems, expected)
    assert all(p.source == str(path) for p in problems)
    for p in problems:  # "path:line: message" / "path: message"
        prefix = f"{path}:{p.line}: " if p.line is not None else f"{path}: "
        assert str(p) == prefix + p.message


@pytest.mark.parametrize("name", ["big.txt", "big.jsonl", "big.csv", "big.jsonl.gz"])
def test_two_megabyte_single_line_abstract(tmp_path, name):
    abstract = ("We propose a long method. " * 80_000).strip()
    assert len(abstract) > 2_000_000
    if name.startswith("big.txt"):
        content = f"Coll\n{abstract}"
    elif ".jsonl" in name:
        content = jl({"abstract": abstract})
    else:
        content = f'abstract\n"{abstract}"\n'
    records, problems = read([write(tmp_path / name, content, gz=name.endswith(".gz"))])
    assert problems == []
    assert [len(r.abstract) for r in records] == [len(abstract)]
    assert records[0].abstract == abstract
    assert records[0].id == sha12(abstract)


def test_line_over_the_limit_is_skipped_not_buffered(tmp_path, monkeypatch):
    monkeypatch.setattr(readers, "MAX_LINE_BYTES", 1000)
    path = write(tmp_path / "l.txt", f"C\n{A1}\n{'y' * 5000}\n{A2}\n")
    records, problems = read([path])
    assert [r.abstract for r in records] == [A1, A2]
    assert [(r.line) for r in records] == [2, 4]
    assert_problems(problems, [("error", 3, ["longer than 1000 bytes"])])


def test_csv_field_over_the_limit_continues(tmp_path, monkeypatch):
    monkeypatch.setattr(readers, "MAX_CSV_FIELD_CHARS", 1000)
    path = write(tmp_path / "f.csv", f'abstract\n{A1}\n"{"z" * 3000}"\n{A2}\n')
    saved = csv.field_size_limit()
    try:
        records, problems = read([path])
    finally:
        csv.field_size_limit(saved)  # process-wide: do not leave 1000 behind for other tests
    assert [r.abstract for r in records] == [A1, A2]
    assert_problems(problems, [("error", 3, ["malformed CSV", "field limit"])])


def test_many_invalid_utf8_lines_are_summarised(tmp_path):
    lines = b"".join(b"r\xe9sum\xe9 %d\n" % i for i in range(30))
    records, problems = read([write(tmp_path / "latin.txt", b"C\n" + lines)])
    assert len(records) == 30
    assert [p.line for p in problems] == [*range(2, 22), None]
    assert "10 more lines" in problems[-1].message
    assert {p.severity for p in problems} == {"warning"}


# --------------------------------------------------------------------------------------------------
# Unreadable files and corrupt gzip: what was read stays read


def gz_records(n: int) -> tuple[bytes, list[str]]:
    abstracts = [f"Abstract number {i} about model M{i}. " + "padding " * 40 for i in range(n)]
    return gzip.compress(jl(*({"abstract": a} for a in abstracts)).encode()), [a.strip() for a in abstracts]


def test_gzip_crc_error_keeps_records_and_reports(tmp_path):
    data, abstracts = gz_records(500)
    crc = int.from_bytes(data[-8:-4], "little")
    bad = data[:-8] + ((crc ^ 1).to_bytes(4, "little")) + data[-4:]
    path = write(tmp_path / "crc.jsonl.gz", bad)
    records, problems = read([path])
    assert [r.abstract for r in records] == abstracts  # CRC is checked at the end of the member
    assert_problems(problems, [("error", None, ["read failed", "CRC"])])


def test_truncated_gzip_keeps_the_prefix(tmp_path):
    data, abstracts = gz_records(2000)
    path = write(tmp_path / "cut.jsonl.gz", data[: len(data) // 2])
    records, problems = read([path])
    got = [r.abstract for r in records]
    assert 0 < len(got) < len(abstracts)
    assert got == abstracts[: len(got)]
    assert_problems(problems, [("error", None, ["read failed"])])


def test_corrupt_gzip_stream_reports(tmp_path):
    data, _ = gz_records(50)
    body = bytearray(data)
    for i in range(20, 60):
        body[i] ^= 0xFF
    records, problems = read([write(tmp_path / "junk.jsonl.gz", bytes(body))])
    assert records == []
    assert len(problems) == 1 and problems[0].severity == "error"


def test_non_regular_file_in_directory_is_an_error_and_others_still_read(tmp_path, monkeypatch):
    d = tmp_path / "d"
    write(d / "a.txt", f"C\n{A1}\n")
    write(d / "c.txt", f"C\n{A2}\n")
    os.symlink("missing-target.txt", d / "b2.txt")
    monkeypatch.chdir(d)  # AF_UNIX paths are length-limited; bind relative to a short cwd
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind("b.txt")
        records, problems = read(["."])
    finally:
        sock.close()
    assert [r.abstract for r in records] == [A1, A2]
    assert_problems(problems, [("error", None, ["not a regular file"]), ("error", None, ["cannot open"])])
    assert [p.source for p in problems] == [os.path.join(".", "b.txt"), os.path.join(".", "b2.txt")]


def test_unopenable_file_given_by_name_is_an_error(tmp_path, monkeypatch):
    # A Unix socket cannot be opened even by root, unlike a chmod 000 file.
    good = write(tmp_path / "good.txt", f"C\n{A1}\n")
    monkeypatch.chdir(tmp_path)
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind("s.jsonl")
        records, problems = read(["s.jsonl", good])
    finally:
        sock.close()
    assert [r.abstract for r in records] == [A1]
    assert_problems(problems, [("error", None, ["cannot open"])])
    assert problems[0].source == "s.jsonl"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads chmod 000 files")
def test_permission_denied_is_an_error(tmp_path):
    path = write(tmp_path / "p.txt", f"C\n{A1}\n")
    path.chmod(0)
    try:
        records, problems = read([path])
    finally:
        path.chmod(0o644)
    assert records == []
    assert_problems(problems, [("error", None, ["cannot open"])])


# --------------------------------------------------------------------------------------------------
# Streaming


class CountingRaw(io.RawIOBase):
    """A byte source that records how far it has been read."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        n = min(len(buf), len(self.data) - self.pos)
        buf[:n] = self.data[self.pos : self.pos + n]
        self.pos += n
        return n


@pytest.mark.parametrize("fmt", ["text", "jsonl", "csv"])
def test_records_are_yielded_before_the_input_is_read_through(fmt):
    abstracts = [f"Abstract {i}. " + "word " * 200 for i in range(2000)]  # ~2 MB
    if fmt == "text":
        content = "C\n" + "".join(a + "\n" for a in abstracts)
    elif fmt == "jsonl":
        content = jl(*({"abstract": a} for a in abstracts))
    else:
        content = "abstract\n" + "".join(a + "\n" for a in abstracts)
    raw = CountingRaw(content.encode())
    stdin = io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8")
    it = read_inputs(["-"], lambda p: None, stdin=stdin)
    first = next(it)
    assert first.abstract == abstracts[0].strip()
    assert raw.pos < len(raw.data) // 20
    assert sum(1 for _ in it) == len(abstracts) - 1
    assert raw.pos == len(raw.data)


def test_problem_str():
    assert str(Problem("a.jsonl", 3, "bad", "error")) == "a.jsonl:3: bad"
    assert str(Problem("a.jsonl", None, "no abstracts", "warning")) == "a.jsonl: no abstracts"


def test_gzip_module_error_types_are_caught_not_raised(tmp_path):
    # Not a gzip stream at all after the magic bytes: gzip raises BadGzipFile (an OSError).
    path = write(tmp_path / "fake.jsonl.gz", b"\x1f\x8b" + b"garbage" * 10)
    records, problems = read([path])
    assert records == []
    assert [p.severity for p in problems] == ["error"]
