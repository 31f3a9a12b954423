"""The pipeline saves and loads as spaCy pipelines do: `nlp.to_disk(dir)` writes the learned weights and
the gazetteer next to the config, and `spacy.load(dir)` (in a fresh process, through the package's
`spacy_factories` entry points) gives the same mentions, aliases and relations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import paperkg
from paperkg.extract.pipeline import build_nlp

TEXT = ("Group Relative Policy Optimization (GRPO) has become a standard recipe. We propose Entropy Ratio "
        "Clipping (ERC), evaluate Qwen2.5-7B-Instruct trained with ERC on MATH500 and AIME24, and compare "
        "it with PPO on CIFAR100-LT classification.")

LOAD = """
import json, sys, spacy
nlp = spacy.load(sys.argv[1])
doc = nlp(sys.argv[2])
print(json.dumps({"pipes": nlp.pipe_names, "spans": [[s.text, s.label_] for s in doc.spans["paperkg"]],
                  "aliases": doc._.paperkg_aliases, "relations": doc._.paperkg_relations,
                  "results": doc._.paperkg_results}))
"""


def _result(nlp, text: str) -> dict:
    doc = nlp(text)
    return {"pipes": nlp.pipe_names, "spans": [[s.text, s.label_] for s in doc.spans["paperkg"]],
            "aliases": doc._.paperkg_aliases, "relations": doc._.paperkg_relations,
            "results": doc._.paperkg_results}


@pytest.mark.parametrize("mode", ["default", "rules"])
def test_saved_pipeline_loads_in_a_fresh_process_with_the_same_results(tmp_path: Path, mode: str) -> None:
    nlp = paperkg.load_pipeline(mode)
    nlp.to_disk(tmp_path / "nlp")
    if mode == "default":
        assert (tmp_path / "nlp" / "paperkg_mentions" / "mentions.json").is_file()
        assert (tmp_path / "nlp" / "paperkg_relation_scorer" / "relations.json").is_file()
    assert (tmp_path / "nlp" / "paperkg_gazetteer" / "gazetteer.tsv").is_file()
    out = subprocess.run([sys.executable, "-c", LOAD, str(tmp_path / "nlp"), TEXT], check=True,
                         capture_output=True, text=True)
    loaded = json.loads(out.stdout)
    assert loaded == json.loads(json.dumps(_result(nlp, TEXT)))
    assert ["ERC", "Method"] in loaded["spans"]


def test_saved_weights_are_the_ones_used(tmp_path: Path) -> None:
    """`from_disk` reads the weights saved in the pipeline directory, not the shipped file."""
    nlp = build_nlp("default")
    nlp.to_disk(tmp_path / "nlp")
    saved = tmp_path / "nlp" / "paperkg_mentions" / "mentions.json"
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["weights"] = {}
    saved.write_text(json.dumps(data), encoding="utf-8")
    saved_dir = tmp_path / "nlp" / "paperkg_mentions"
    scorer = build_nlp("default").get_pipe("paperkg_mentions").from_disk(saved_dir)
    assert scorer.model.weights == {}
