"""The extraction pipeline: `spacy.blank("en")` plus paperkg's registered components.

    from paperkg.extract.pipeline import Extractor
    for ex in Extractor().extract([(paper_id, abstract), ...]):
        print(ex.to_json())

As a spaCy pipeline: `load_pipeline()` (also `paperkg.load_pipeline()`) is the `Language`; its
results are on the Doc (`doc.spans["paperkg"]`, `doc._.paperkg_aliases`, ... see `doc_utils`).

Nothing is downloaded at run time: the gazetteer and the trained NER ship inside the package.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import re
import signal
import sys
import warnings
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.tokens import Doc

from paperkg.extract import factories  # noqa: F401  (registers the components)
from paperkg.extract.doc_utils import FINAL, doc_text, make_doc, sentence_spans, token_sentence
from paperkg.extract.tokenizer import customize_tokenizer
from paperkg.graph.errors import UsageError, WorkersLostError
from paperkg.graph.normalize import paper_id_for
from paperkg.graph.records import Extraction, Mention, RelationMention

log = logging.getLogger(__name__)

MODES = ("default", "rules")
MODEL_DIR = Path(__file__).parent / "model"
# Abstracts longer than this are split into chunks (spaCy's own limit is nlp.max_length).
CHUNK_CHARS = 100_000
# A `--jobs` batch whose worker process dies (the OOM killer, a `kill -9`) goes to a fresh pool of
# workers this many times before the build stops: a batch that kills every worker it meets must end
# the build with a message, not retry for ever. Every batch in flight when a worker dies counts a try,
# since which of them the dead worker held is not known.
WORKER_RETRIES = 2
# Batches submitted ahead per worker process: enough to keep workers busy, few enough that memory
# stays flat (the input is read only as fast as workers finish).
BATCHES_PER_WORKER = 3


def build_nlp(mode: str = "default", ner_path: str | Path | None = None,
              typer_path: str | Path | None = None, phrases_path: str | Path | None = None,
              model_dir: str | Path | None = None) -> Language:
    """A blank English pipeline with paperkg's components; `rules` leaves out the learned parts.

    `default` adds the learned span typer (`model/typer.json`) and, if one was trained into `model/ner`,
    a spaCy NER or BILUO tagger. For training and evaluation, `ner_path` / `typer_path` name other saved
    ones; the string "none" leaves one out."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    nlp = spacy.blank("en")
    customize_tokenizer(nlp)
    nlp.add_pipe("paperkg_sentences", name="sentencizer")
    nlp.add_pipe("paperkg_acronyms")
    nlp.add_pipe("paperkg_model_names")
    nlp.add_pipe("paperkg_name_shapes")
    nlp.add_pipe("paperkg_intro_names")
    nlp.add_pipe("paperkg_gazetteer")
    if mode == "default":
        # the NER is optional (not shipped: too slow for the speed target, see README); the typer is not
        ner_dir = _learned_path(ner_path, MODEL_DIR / "ner", quiet=True)
        if ner_dir is not None:
            trained = spacy.load(ner_dir)
            for name in trained.pipe_names:  # `ner`, or the BILUO `entity_tagger`
                nlp.add_pipe(name, source=trained, after="sentencizer")
        # the learned mention and relation scorers (`model/mentions.json`, `model/relations.json`, built
        # by `python -m paperkg.extract.training`); naming an older phrase finder / typer uses those instead
        models = Path(model_dir) if model_dir else MODEL_DIR
        if typer_path is None and phrases_path is None and (models / "mentions.json").exists():
            nlp.add_pipe("paperkg_mentions").load(models / "mentions.json")
            nlp.add_pipe("paperkg_described_methods")
            nlp.add_pipe("paperkg_introduced")
            if (models / "relations.json").exists():
                nlp.add_pipe("paperkg_relation_scorer").load(models / "relations.json")
            else:
                nlp.add_pipe("paperkg_relations")
            results = nlp.add_pipe("paperkg_results")
            if (models / "results.json").exists():
                results.load(models / "results.json")
            return nlp
        phrases_file = _learned_path(phrases_path, MODEL_DIR / "phrases.json")
        if phrases_file is not None:
            nlp.add_pipe("paperkg_phrases").load(phrases_file)
        typer_file = _learned_path(typer_path, MODEL_DIR / "typer.json")
        if typer_file is not None:
            nlp.add_pipe("paperkg_typer").load(typer_file)
    nlp.add_pipe("paperkg_resolver")
    nlp.add_pipe("paperkg_introduced")
    nlp.add_pipe("paperkg_relations")
    # reported results, linked by the rules here (the learned linker is `default` mode's)
    nlp.add_pipe("paperkg_results")
    return nlp


def load_pipeline(mode: str = "default") -> Language:
    """paperkg's extractor as a spaCy `Language` (`paperkg.load_pipeline()`): what `paperkg build`
    and `paperkg extract` run. `nlp(text).spans["paperkg"]` holds the entities (label = type), and
    `doc._.paperkg_aliases`, `doc._.paperkg_relations`, `doc._.paperkg_head` and `doc._.paperkg_results`
    the acronym pairs, relations, the paper's own method and reported results (`doc_utils`).
    `nlp.to_disk(d)` saves it with its learned weights, and `spacy.load(d)` loads it in any process
    (the components are `spacy_factories` entry points). `mode="rules"` leaves out the learned parts.

    `Extractor` (and so the CLI) reads LaTeX spacing (`~`, `\\,`) as spaces before tokenizing
    (`doc_utils.make_doc`); `nlp(text)` tokenizes the text as given."""
    return build_nlp(mode)


def extract_texts(texts: Iterable[str | tuple[str, str]], *, mode: str = "default",
                  jobs: int = 1) -> list[Extraction]:
    """`paperkg.extract(texts)`: one `Extraction` per abstract, in order, as `paperkg extract`
    writes them (`Extraction.to_json()` is its line). A text is an abstract, its paper id made as a
    build makes it (`paper_id_for`), or an `(id, abstract)` pair; `jobs` extraction processes."""
    papers = [(t[0], t[1]) if isinstance(t, tuple) else (paper_id_for(t), t) for t in texts]
    return list(Extractor(mode=mode, n_process=jobs).extract(papers))


def _learned_path(given: str | Path | None, shipped: Path, quiet: bool = False) -> Path | None:
    if given is not None and str(given) == "none":
        return None
    path = Path(given) if given else shipped
    if path.exists():
        return path
    if given:
        raise FileNotFoundError(f"trained component not found at {path}")
    if quiet:
        return None
    msg = (f"trained component not found at {path}; extracting without it "
           "(see extract/README.md for the training commands)")
    warnings.warn(msg, stacklevel=3)
    log.warning(msg)
    return None


def _split_long(text: str, limit: int) -> list[tuple[int, str]]:
    """Cut `text` into pieces of at most `limit` chars at sentence-ish boundaries: (offset, piece)."""
    pieces = []
    start = 0
    while len(text) - start > limit:
        window = text[start:start + limit]
        cut = 0
        for pattern in (r"[.!?]\s+", r"\n+", r"\s+"):
            ends = [m.end() for m in re.finditer(pattern, window[limit // 2:])]
            if ends:
                cut = limit // 2 + ends[-1]
                break
        cut = cut or limit
        pieces.append((start, text[start:start + cut]))
        start += cut
    pieces.append((start, text[start:]))
    return pieces


def doc_to_extraction(doc: Doc, paper_id: str, text: str | None = None, offset: int = 0,
                      sent_offset: int = 0) -> Extraction:
    """Read the components' results off a Doc (offsets shifted by `offset` for chunks)."""
    text = doc_text(doc) if text is None else text
    sents = sentence_spans(doc) if len(doc) else []
    sentences = [(s.start_char + offset, s.end_char + offset) for s in sents]
    sent_of = token_sentence(doc, sents) if sents else []
    intro = {tuple(x) for x in (doc._.paperkg_introduced or [])}
    final = list(doc.spans.get(FINAL, []))
    # the learned scorers' calibrated probabilities (rules mode: none, so 1.0)
    confidence = doc._.paperkg_confidence or []
    if len(confidence) != len(final):
        confidence = [1.0] * len(final)
    mentions = [
        Mention(text=s.text, type=s.label_, start=s.start_char + offset, end=s.end_char + offset,
                sentence=sent_of[s.start] + sent_offset, introduced=(s.start_char, s.end_char) in intro,
                confidence=float(c))
        for s, c in zip(final, confidence, strict=True)
    ]
    aliases = [(a, b) for a, b in (doc._.paperkg_aliases or [])]
    relations = [RelationMention(head=row[0], type=row[1], tail=row[2], sentence=row[3] + sent_offset,
                                 confidence=float(row[4]) if len(row) > 4 else 1.0)
                 for row in (doc._.paperkg_relations or [])]
    results = [replace(r, start=r.start + offset, end=r.end + offset, sentence=r.sentence + sent_offset)
               for r in (doc._.paperkg_results or [])]
    return Extraction(paper_id=paper_id, text=text, sentences=sentences, mentions=mentions,
                      aliases=aliases, relations=relations, results=results)


def _merge(paper_id: str, text: str, parts: list[Extraction]) -> Extraction:
    """One Extraction from the chunks of a long text (chars already shifted; sentences shifted here)."""
    out = Extraction(paper_id=paper_id, text=text)
    for p in parts:
        shift = len(out.sentences)
        out.sentences.extend(p.sentences)
        out.mentions.extend(replace(m, sentence=m.sentence + shift) for m in p.mentions)
        out.aliases.extend(a for a in p.aliases if a not in out.aliases)
        out.relations.extend(replace(r, sentence=r.sentence + shift) for r in p.relations)
        out.results.extend(replace(r, sentence=r.sentence + shift) for r in p.results)
    return out


Piece = tuple[str, tuple[str, int, int]]  # (text, (paper_id, offset, number of pieces))

_WORKER: dict = {}
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _init_worker(mode: str, paths: dict[str, str | None], parent: int) -> None:
    _die_with(parent)
    _WORKER["nlp"] = build_nlp(mode, **paths)


def _die_with(parent: int) -> None:
    """End this worker when the build process `parent` dies: a killed build would otherwise leave its
    workers waiting for work for ever, each holding a loaded pipeline (Linux; elsewhere a no-op)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:      # it died before prctl took effect
        os._exit(1)


def run_batch(nlp: Language, batch: list[Piece]) -> list[tuple[Extraction, tuple[str, int, int]]]:
    """Extract one batch of pieces with `nlp.pipe`; the result is plain records, cheap to pickle."""
    out = []
    docs = ((make_doc(nlp, text), meta) for text, meta in batch)
    for doc, meta in nlp.pipe(docs, as_tuples=True):
        paper_id, offset, n_parts = meta
        text = doc_text(doc) if n_parts > 1 else None
        out.append((doc_to_extraction(doc, paper_id, text, offset), meta))
    return out


def _worker_batch(batch: list[Piece]) -> list[tuple[Extraction, tuple[str, int, int]]]:
    return run_batch(_WORKER["nlp"], batch)


class Extractor:
    """Entities, aliases and relations from abstracts, as `paperkg.graph.records.Extraction`."""

    def __init__(self, mode: str = "default", n_process: int = 1, batch_size: int = 64,
                 ner_path: str | Path | None = None, typer_path: str | Path | None = None,
                 phrases_path: str | Path | None = None, dask: str | None = None,
                 model_dir: str | Path | None = None) -> None:
        """`dask` is a scheduler address (or `local`): the batches then run as tasks on that cluster
        (`extract.cluster`) and `n_process` is ignored."""
        self.mode = mode
        self.n_process = max(1, int(n_process))
        self.batch_size = max(1, int(batch_size))
        self.paths = {"ner_path": ner_path, "typer_path": typer_path, "phrases_path": phrases_path,
                      "model_dir": model_dir}
        self.dask = dask
        self.limit = CHUNK_CHARS
        # loaded now for local extraction (so load time is not extraction time); a Dask build loads
        # it on the workers only
        self._nlp: Language | None = None if dask else build_nlp(mode, **self.paths)

    @property
    def nlp(self) -> Language:
        if self._nlp is None:
            self._nlp = build_nlp(self.mode, **self.paths)
        return self._nlp

    def _pieces(self, papers: Iterable[tuple[str, str]]) -> Iterator[Piece]:
        for paper_id, text in papers:
            text = text or ""
            if len(text) <= self.limit:
                yield text, (paper_id, 0, 1)
                continue
            pieces = _split_long(text, self.limit)
            msg = (f"abstract {paper_id!r} has {len(text):,} characters; "
                   f"extracting it in {len(pieces)} chunks of at most {self.limit:,}")
            warnings.warn(msg, stacklevel=3)
            log.warning(msg)
            for offset, piece in pieces:
                yield piece, (paper_id, offset, len(pieces))

    def _batches(self, papers: Iterable[tuple[str, str]]) -> Iterator[list[Piece]]:
        batch: list[Piece] = []
        for piece in self._pieces(papers):
            batch.append(piece)
            if len(batch) >= self.batch_size:
                yield batch
                batch = []
        if batch:
            yield batch

    def _results(self, papers: Iterable[tuple[str, str]]) -> Iterator[tuple[Extraction, tuple]]:
        paths = {k: str(v) if v else None for k, v in self.paths.items()}
        if self.dask:
            try:
                from paperkg.extract.cluster import run_batches
            except ImportError as err:
                if err.name not in ("dask", "distributed"):
                    raise
                raise UsageError("--dask needs Dask's distributed package",
                                 "install it with `pip install 'paperkg[dask]'`") from err
            for results in run_batches(self.dask, self.mode, paths, self._batches(papers)):
                yield from results
            return
        if self.n_process == 1:
            for batch in self._batches(papers):
                yield from run_batch(self.nlp, batch)
            return
        for results in self._pool_results(self._batches(papers), paths):
            yield from results

    def _pool_results(self, batches: Iterator[list[Piece]], paths: dict[str, str | None]
                      ) -> Iterator[list[tuple[Extraction, tuple[str, int, int]]]]:
        """Each batch's results, in input order, from `n_process` worker processes that each run the
        pipeline and send back plain records (no Doc serialisation).

        A worker that dies breaks the pool (`BrokenProcessPool`, where `Pool.imap` would wait for
        its batch for ever while the build holds the store's write lock): the batches in flight go
        to a fresh pool, at most WORKER_RETRIES times each, then the build stops with a message.
        """
        ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods()
                                          else "spawn")

        def new_pool() -> ProcessPoolExecutor:
            return ProcessPoolExecutor(self.n_process, mp_context=ctx, initializer=_init_worker,
                                       initargs=(self.mode, paths, os.getpid()))

        pool = new_pool()
        # [batch, its future, how many pools it has been given to]
        pending: deque[tuple[list[Piece], Future, int]] = deque()

        def submit(batch: list[Piece], tries: int) -> None:
            try:
                future = pool.submit(_worker_batch, batch)
            except BrokenProcessPool as err:    # broke since the last result: handled in its turn
                future = Future()
                future.set_exception(err)
            pending.append((batch, future, tries))

        def fill() -> None:
            while len(pending) < self.n_process * BATCHES_PER_WORKER:
                batch = next(batches, None)
                if batch is None:
                    return
                submit(batch, 1)

        try:
            fill()
            while pending:
                try:
                    results = pending[0][1].result()
                except BrokenProcessPool as err:
                    lost = list(pending)
                    pending.clear()
                    pool.shutdown(wait=True, cancel_futures=True)
                    worst, _, tries = max(lost, key=lambda item: item[2])
                    if tries > WORKER_RETRIES:
                        raise WorkersLostError(
                            f"an extraction worker process died {tries} times while holding the "
                            f"same batch of abstracts (first paper {worst[0][1][0]!r})",
                            "look for the OOM killer in `dmesg` or the system log; run the build "
                            "again with fewer --jobs, or without the paper; a build leaves its store "
                            "as it was") from err
                    msg = (f"an extraction worker process died (killed, or out of memory); its "
                           f"{len(lost)} batch(es) in flight go to new workers")
                    warnings.warn(msg, stacklevel=2)
                    pool = new_pool()
                    for batch, _, tries in lost:
                        submit(batch, tries + 1)
                    continue
                pending.popleft()
                fill()
                yield results
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def extract(self, papers: Iterable[tuple[str, str]]) -> Iterator[Extraction]:
        """One Extraction per (paper_id, abstract) pair, in input order (texts run through `nlp.pipe`)."""
        pending: list[Extraction] = []
        for part, (paper_id, _offset, n_parts) in self._results(papers):
            if n_parts == 1:
                yield part
                continue
            pending.append(part)
            if len(pending) == n_parts:
                yield _merge(paper_id, "".join(p.text for p in pending), pending)
                pending = []

    def extract_text(self, text: str, paper_id: str = "") -> Extraction:
        """One abstract, in this process."""
        n_process, dask = self.n_process, self.dask
        self.n_process, self.dask = 1, None
        try:
            return next(self.extract([(paper_id, text)]))
        finally:
            self.n_process, self.dask = n_process, dask
