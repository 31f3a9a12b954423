"""Train every learned part of the default pipeline into one model directory.

`train_all` is what both the shipped models (`python -m paperkg.extract.training`) and every
cross-validation fold (`training.cv`) run, so CV measures exactly what ships.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, fields
from pathlib import Path

from paperkg.extract.training import train_typer


@dataclass
class Settings:
    """Training and decoding settings (the defaults are what ships; chosen by 5-fold CV)."""

    seed: int = 13
    typer_epochs: int = 20
    typer_l2: float = 1e-4
    typer_lr: float = 0.1
    min_count: int = 1
    phrase_epochs: int = 150
    phrase_l2: float = 1e-4
    phrase_lr: float = 0.05
    min_prob: float = 0.8
    phrase_prob: float = 0.3

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Settings:
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for f in fields(Settings):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)


def train_all(records: list[dict], out_dir: Path, settings: Settings) -> dict:
    """Train the span typer and the phrase finder on `records`; write them into `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.time()
    nlp = train_typer.blank()
    examples = train_typer.instances(nlp, records)
    typer = train_typer.train(examples, settings.typer_epochs, settings.typer_l2, settings.typer_lr,
                              settings.min_count, settings.seed)
    typer.to_disk(out_dir / "typer.json")
    phrases = train_typer.train_dense(train_typer.phrase_instances(nlp, records), train_typer.PHRASE_LABELS,
                                      settings.phrase_epochs, settings.phrase_l2, settings.phrase_lr,
                                      settings.min_count)
    phrases.to_disk(out_dir / "phrases.json")
    return {"typer_instances": len(examples), "typer_features": len(typer.weights),
            "phrase_features": len(phrases.weights), "seconds": round(time.time() - started, 1)}


def extractor(model_dir: Path, settings: Settings):
    """An Extractor with the models of `model_dir` and the decoding settings."""
    from paperkg.extract.pipeline import Extractor

    ex = Extractor(ner_path="none", typer_path=model_dir / "typer.json",
                   phrases_path=model_dir / "phrases.json")
    resolver = ex.nlp.get_pipe("paperkg_resolver")
    resolver.min_prob = settings.min_prob
    resolver.phrase_prob = settings.phrase_prob
    return ex
