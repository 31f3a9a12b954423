"""arXiv metadata JSONL (the Kaggle/OAI dump's records) loads as it comes: year from the first version,
else `update_date`, else the id; the abs url; doi and categories; authors' LaTeX as Unicode; hard line
breaks of titles and abstracts normalised, so no extracted name holds one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperkg.extract.readers import arxiv_year_from_id, latex_to_unicode, read_inputs

# Real records of the arXiv metadata dump (abstracts shortened), as the dump writes them.
DIPHOTON = {
    "id": "0704.0001", "submitter": "Pavel Nadolsky",
    "authors": "C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan",
    "title": "Calculation of prompt diphoton production cross sections at Tevatron and\n  LHC energies",
    "doi": "10.1103/PhysRevD.76.013009", "categories": "hep-ph",
    "abstract": "  A fully differential calculation in perturbative quantum chromodynamics is\npresented "
                "for the production of massive photon pairs at hadron colliders.\n",
    "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"},
                 {"version": "v2", "created": "Tue, 24 Jul 2007 20:10:27 GMT"}],
    "update_date": "2008-11-13",
    "authors_parsed": [["Balázs", "C.", ""], ["Berger", "E. L.", ""], ["Nadolsky", "P. M.", ""],
                       ["Yuan", "C. -P.", ""]],
}
MALDACENA = {
    "id": "hep-th/9711200", "authors": "Juan M. Maldac\\'ena", "doi": None,
    "title": "The Large N Limit of Superconformal Field Theories and Supergravity",
    "categories": "hep-th",
    "abstract": "We show that the large $N$ limit of certain conformal field theories in various\n"
                "dimensions include in their Hilbert space a sector describing supergravity.",
    "update_date": "2009-10-07",
}
DEEPSEEKMATH = {
    "id": "2402.03300", "authors": "Zhihong Shao, Peiyi Wang, Qihao Zhu, Runxin Xu, Junxiao Song",
    "title": "DeepSeekMath: Pushing the Limits of Mathematical Reasoning in Open Language\n  Models",
    "categories": "cs.CL cs.AI cs.LG", "doi": None,
    "abstract": "Mathematical reasoning poses a significant challenge for language models. We introduce "
                "Group Relative Policy\nOptimization (GRPO), a variant of Proximal Policy Optimization "
                "(PPO), that enhances mathematical\nreasoning abilities while optimizing the memory usage "
                "of PPO. DeepSeekMath 7B achieves 51.7% on\nthe competition-level MATH benchmark.",
    "versions": [{"version": "v1", "created": "Mon, 5 Feb 2024 18:55:32 GMT"}],
    "update_date": "2024-04-29",
    "authors_parsed": [["Shao", "Zhihong", ""], ["Wang", "Peiyi", ""], ["Zhu", "Qihao", ""],
                       ["Xu", "Runxin", ""], ["Song", "Junxiao", ""]],
}


def _read(tmp_path: Path, *records: dict) -> list:
    path = tmp_path / "arxiv-metadata.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    problems: list = []
    out = list(read_inputs([str(path)], problems.append))
    assert problems == []
    return out


CASES = [
    # record, year, url, doi, categories, authors
    (DIPHOTON, 2007, "https://arxiv.org/abs/0704.0001", "10.1103/PhysRevD.76.013009", ("hep-ph",),
     ("C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan")),
    (MALDACENA, 2009, "https://arxiv.org/abs/hep-th/9711200", None, ("hep-th",), ("Juan M. Maldacéna",)),
    (DEEPSEEKMATH, 2024, "https://arxiv.org/abs/2402.03300", None, ("cs.CL", "cs.AI", "cs.LG"),
     ("Zhihong Shao", "Peiyi Wang", "Qihao Zhu", "Runxin Xu", "Junxiao Song")),
]


@pytest.mark.parametrize(("record", "year", "url", "doi", "categories", "authors"), CASES,
                         ids=[c[0]["id"] for c in CASES])
def test_metadata_record_loads_as_is(tmp_path: Path, record: dict, year: int, url: str, doi: str | None,
                                     categories: tuple, authors: tuple) -> None:
    (paper,) = _read(tmp_path, record)
    assert (paper.id, paper.year, paper.url, paper.doi) == (record["id"], year, url, doi)
    assert paper.categories == categories
    assert paper.authors == authors
    assert "\n" not in paper.abstract and "  " not in paper.abstract
    assert paper.abstract == " ".join(record["abstract"].split())
    assert "\n" not in paper.title and "  " not in paper.title


YEARS = [
    ({"versions": [{"created": "Mon, 2 Apr 2007 19:18:42 GMT"}], "update_date": "2008-11-13"}, 2007),
    ({"versions": [{"created": "not a date"}], "update_date": "2008-11-13"}, 2008),
    ({"update_date": "2008-11-13"}, 2008),
    ({}, 2024),
    ({"year": 2021, "versions": [{"created": "Mon, 2 Apr 2007 19:18:42 GMT"}]}, 2021),  # stated year wins
]


@pytest.mark.parametrize(("fields", "year"), YEARS)
def test_year_precedence(tmp_path: Path, fields: dict, year: int) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": "2401.01234", "abstract": "We study GRPO.", **fields}) + "\n",
                    encoding="utf-8")
    (paper,) = list(read_inputs([str(path)], lambda p: None))
    assert paper.year == year


@pytest.mark.parametrize(("rid", "year"), [
    ("2401.12345", 2024), ("0704.0001", 2007), ("2401.12345v3", 2024), ("hep-th/9901001", 1999),
    ("math.AG/0601001", 2006), ("cond-mat/9112001", 1991), ("2413.00001", None), ("f056597afbd1", None),
    ("paper-7", None),
])
def test_year_from_arxiv_id(rid: str, year: int | None) -> None:
    assert arxiv_year_from_id(rid) == year


@pytest.mark.parametrize(("latex", "text"), [
    ("Juan M. Maldac\\'ena", "Juan M. Maldacéna"), ("Pierre-Fran\\c{c}ois", "Pierre-François"),
    ('Kurt G\\"{o}del', "Kurt Gödel"), ('\\"Ozg\\"ur', "Özgür"), ("Plain Name", "Plain Name"),
    ("A.~B. Smith", "A. B. Smith"), ("Ann\n  Lee", "Ann Lee"),
])
def test_author_latex_becomes_unicode(latex: str, text: str) -> None:
    assert latex_to_unicode(latex) == text


def test_grpo_long_form_is_one_clean_name(tmp_path: Path) -> None:
    from paperkg.extract.pipeline import Extractor

    (paper,) = _read(tmp_path, DEEPSEEKMATH)
    ex = Extractor(mode="default").extract_text(paper.abstract, paper.id)
    names = {m.text for m in ex.mentions}
    assert "Group Relative Policy Optimization" in names
    assert ("Group Relative Policy Optimization", "GRPO") in ex.aliases
    assert not any("\n" in n for n in names)


def test_doi_and_categories_reach_the_paper_node(tmp_path: Path) -> None:
    from paperkg.graph.build import build_graph
    from paperkg.graph.corpus import Corpus

    corpus = Corpus()
    for paper in _read(tmp_path, DIPHOTON, DEEPSEEKMATH):
        corpus.add(paper)
    graph = build_graph(corpus)
    papers = {n.props["id"]: n.props for n in graph.nodes.values() if n.label == "Paper"}
    assert papers["0704.0001"]["doi"] == "10.1103/PhysRevD.76.013009"
    assert papers["0704.0001"]["categories"] == ["hep-ph"]
    assert papers["2402.03300"]["categories"] == ["cs.CL", "cs.AI", "cs.LG"]
    assert papers["2402.03300"]["year"] == 2024 and "doi" not in papers["2402.03300"]
