"""The extractor as spaCy users meet it: `paperkg.load_pipeline()`, components added by name to a
pipeline of one's own in a fresh interpreter (through the `spacy_factories` entry points, paperkg never
imported by hand), the results on the Doc, and displaCy's span view of them, escaped."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points

import pytest
import spacy
from spacy import displacy
from spacy.language import Language

import paperkg
from paperkg.extract import factories
from paperkg.extract.display import extraction_doc, render_page
from paperkg.extract.tokenizer import customize_tokenizer
from paperkg.graph.records import Extraction, Mention, ResultMention

TEXT = ("We propose Group Relative Policy Optimization (GRPO) and evaluate it on MATH500, "
        "outperforming PPO in accuracy.")


def test_every_registered_component_is_an_entry_point_of_the_distribution() -> None:
    """`spacy.load` and `add_pipe` find a component in a process that never imported paperkg only
    through the entry point: one missing from pyproject works in tests and fails for users."""
    registered = {name for name in Language.factories if name.startswith("paperkg_")}
    points = {ep.name: ep for ep in entry_points(group="spacy_factories") if ep.name.startswith("paperkg_")}
    assert registered == set(points)
    for name, ep in points.items():
        assert ep.load() is getattr(factories, ep.value.rpartition(":")[2]), name


ALONE = """
import json, sys, spacy
nlp = spacy.blank("en")
for name in sys.argv[1].split(","):
    nlp.add_pipe(name)
doc = nlp(sys.argv[2])
print(json.dumps({"spans": [[s.text, s.label_] for s in doc.spans.get("paperkg", [])],
                  "aliases": doc._.paperkg_aliases, "relations": doc._.paperkg_relations,
                  "results": doc._.paperkg_results,
                  "imported": sorted(m for m in sys.modules if m.startswith("paperkg"))[:1]}))
"""


def _alone(components: list[str]) -> dict:
    out = subprocess.run([sys.executable, "-c", ALONE, ",".join(components), TEXT], check=True,
                         capture_output=True, text=True, cwd="/")
    return json.loads(out.stdout)


def test_the_acronym_detector_alone_in_a_fresh_blank_pipeline() -> None:
    got = _alone(["paperkg_acronyms"])
    assert got["aliases"] == [["Group Relative Policy Optimization", "GRPO"]]
    assert got["results"] is None      # the extension exists; no results component ran
    assert got["imported"] == ["paperkg"]        # loaded by spaCy through the entry point


def test_the_rule_components_in_a_users_own_pipeline() -> None:
    got = _alone(["paperkg_sentences", "paperkg_acronyms", "paperkg_model_names", "paperkg_gazetteer",
                  "paperkg_resolver", "paperkg_relations"])      # as README lists them
    assert ["GRPO", "Method"] in got["spans"] and ["MATH500", "Benchmark"] in got["spans"]
    assert ["Group Relative Policy Optimization", "COMPARED_WITH", "PPO", 0] in got["relations"]


@pytest.fixture(scope="module")
def nlp() -> Language:
    return paperkg.load_pipeline()


def test_load_pipeline_is_the_extractors_pipeline(nlp: Language) -> None:
    from paperkg.extract.pipeline import build_nlp

    assert nlp.pipe_names == build_nlp("default").pipe_names
    assert "paperkg_mentions" in nlp.pipe_names
    assert "paperkg_mentions" not in paperkg.load_pipeline("rules").pipe_names
    doc = nlp(TEXT)
    assert ("GRPO", "Method") in {(s.text, s.label_) for s in doc.spans["paperkg"]}
    assert doc._.paperkg_aliases == [["Group Relative Policy Optimization", "GRPO"]]
    assert any(r[1:3] == ["EVALUATED_ON", "MATH500"] for r in doc._.paperkg_relations)
    assert doc._.paperkg_results == []      # no number in the text
    scored = nlp("We propose Group Relative Policy Optimization (GRPO). GRPO reaches 71.3% accuracy on "
                 "MATH500.")
    assert [(r.value, r.kind, r.benchmark) for r in scored._.paperkg_results] == [
        ("71.3%", "absolute", "MATH500")]


def test_displacy_shows_the_entities_of_a_live_doc_escaped(nlp: Language) -> None:
    doc = nlp(TEXT + " Our <script>alert(1)</script> code & data are released.")
    page = displacy.render(doc, style="span", options={"spans_key": "paperkg"}, jupyter=False)
    for span in doc.spans["paperkg"]:
        assert span.text.split()[0] in page and span.label_ in page
    assert "<script" not in page and "&lt;script&gt;" in page.replace(" ", "")
    assert "&amp;" in page


def test_the_page_of_extractions_escapes_abstracts_and_ids() -> None:
    text = "We train <img src=x onerror=alert(1)> ResNet-50 on ImageNet and reach 76.1% top-1."
    start = text.index("ResNet-50")
    dataset = text.index("ImageNet")
    result = text.index("76.1%")
    extraction = Extraction(
        paper_id='<b id="x">p1</b>', text=text,
        mentions=[Mention("ResNet-50", "Model", start, start + 9, 0),
                  Mention("ImageNet", "Dataset", dataset, dataset + 8, 0)],
        results=[ResultMention("76.1%", "score", result, result + 5, 0, "76.1%", number=76.1, unit="%")])
    page = render_page([extraction, Extraction(paper_id="p2", text="A second abstract about GRPO.")])
    assert page.count("<!DOCTYPE html>") == 1 and "second" in page and "p2" in page
    assert "<img" not in page and "<b id" not in page and "&lt;b id=&quot;x&quot;&gt;p1&lt;/b&gt;" in page
    assert "<script" not in page
    for label in ("Model", "Dataset", "Result"):
        assert label in page
    blank = spacy.blank("en")
    customize_tokenizer(blank)
    doc = extraction_doc(blank, extraction)
    assert [(s.text, s.label_) for s in doc.spans["paperkg"]] == [
        ("ResNet-50", "Model"), ("ImageNet", "Dataset"), ("76.1%", "Result")]
