"""Saving and loading a component's learned weights with the pipeline (`nlp.to_disk` / `spacy.load`).

The learned components each keep one JSON weights file; this mixin is the one place that says how it
travels with a saved pipeline, so the five of them cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar, Self


class LearnedWeights:
    """For a component whose `model` (or None) is a `weights_class` saved as `weights_file`."""

    weights_class: ClassVar[Any]
    weights_file: ClassVar[str]
    model: Any

    def load(self, path: str | Path) -> Self:
        """Use the weights saved at `path` (a file written by training)."""
        self.model = self.weights_class.from_disk(path)
        return self

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        if self.model is not None:
            self.model.to_disk(path / self.weights_file)

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> Self:
        if (Path(path) / self.weights_file).exists():
            self.model = self.weights_class.from_disk(Path(path) / self.weights_file)
        return self
