"""The set of papers a store holds, with their extractions: the graph is a pure function of it.

Re-deriving the whole graph from the corpus on every build is what makes building file by file equal
to building all at once: acronym resolution and type votes look across all papers, so an
incremental patch of the old graph would depend on the order the files came in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

from paperkg.graph.normalize import paper_text_key
from paperkg.graph.records import Extraction, Mention, PaperInput, RelationMention, ResultMention


def text_key(abstract: str) -> str:
    return hashlib.sha1(paper_text_key(abstract).encode("utf-8")).hexdigest()


@dataclass
class RecordMeta:
    """What one input record said about a paper, kept so merges stay order-independent."""

    id: str
    abstract: str
    collection: str | None = None
    title: str | None = None
    year: int | None = None
    authors: tuple[str, ...] = ()
    url: str | None = None
    doi: str | None = None
    categories: tuple[str, ...] = ()


def record_meta(record: PaperInput) -> RecordMeta:
    return RecordMeta(record.id, record.abstract, record.collection, record.title, record.year,
                      tuple(record.authors), record.url, record.doi, tuple(record.categories))


@dataclass
class PaperEntry:
    """One paper: every record whose abstract is the same text, and one extraction of it.

    Records are keyed by (id, collection) so that one record listed in two collections counts twice.
    """

    key: str
    records: dict[tuple[str, str], RecordMeta] = field(default_factory=dict)
    extraction: Extraction | None = None

    @property
    def id(self) -> str:
        """The smallest record id, so the choice does not depend on reading order."""
        return min(rid for rid, _ in self.records)

    @property
    def ids(self) -> list[str]:
        return sorted({rid for rid, _ in self.records})

    @property
    def abstract(self) -> str:
        return self.first("abstract")  # type: ignore[return-value]

    @property
    def collections(self) -> list[str]:
        return sorted({c for _, c in self.records if c})

    def first(self, attr: str) -> object:
        """A metadata field from the first record (by id, then collection) that has a value."""
        for rkey in sorted(self.records):
            value = getattr(self.records[rkey], attr)
            if value:
                return value
        return None


@dataclass
class Corpus:
    papers: dict[str, PaperEntry] = field(default_factory=dict)
    by_id: dict[str, str] = field(default_factory=dict)

    def add(self, record: PaperInput) -> tuple[PaperEntry, bool]:
        """Merge a record; returns its paper and whether the corpus changed.

        Raises `ValueError` when the record's id already names a different abstract.
        """
        key = text_key(record.abstract)
        owner = self.by_id.get(record.id)
        if owner is not None and owner != key:
            raise ValueError(f"id {record.id!r} is already used by a different abstract")
        entry = self.papers.setdefault(key, PaperEntry(key=key))
        self.by_id[record.id] = key
        rkey = (record.id, record.collection or "")
        meta = record_meta(record)
        old = entry.records.get(rkey)
        merged = meta if old is None else merge_records(old, meta)
        entry.records[rkey] = merged
        return entry, merged != old

    def __iter__(self) -> Iterator[PaperEntry]:
        return iter(self.papers[k] for k in sorted(self.papers))

    def __len__(self) -> int:
        return len(self.papers)


def merge_records(old: RecordMeta, new: RecordMeta) -> RecordMeta:
    """Fill fields the old record lacked; never overwrite, so re-reading changes nothing."""
    merged = asdict(old)
    for name, value in asdict(new).items():
        if not merged.get(name) and value:
            merged[name] = value
    merged["authors"] = tuple(merged["authors"])
    merged["categories"] = tuple(merged["categories"])
    return RecordMeta(**merged)


def entry_to_dict(entry: PaperEntry) -> dict:
    """JSON-ready form, for stores that keep the corpus beside the graph (Neo4j)."""
    return {
        "key": entry.key,
        "records": [asdict(r) for _, r in sorted(entry.records.items())],
        "extraction": asdict(entry.extraction) if entry.extraction else None,
    }


def entry_from_dict(data: dict) -> PaperEntry:
    entry = PaperEntry(key=data["key"])
    for r in data["records"]:
        meta = RecordMeta(**{**r, "authors": tuple(r["authors"]),
                             "categories": tuple(r.get("categories") or ())})
        entry.records[(meta.id, meta.collection or "")] = meta
    if data.get("extraction"):
        entry.extraction = extraction_from_dict(data["extraction"])
    return entry


def extraction_from_dict(data: dict) -> Extraction:
    return Extraction(
        paper_id=data["paper_id"],
        text=data["text"],
        sentences=[tuple(s) for s in data["sentences"]],
        mentions=[Mention(**m) for m in data["mentions"]],
        aliases=[tuple(a) for a in data["aliases"]],
        relations=[RelationMention(**r) for r in data["relations"]],
        results=[ResultMention(**r) for r in data.get("results", ())],
        extractor=data.get("extractor", ""),
    )
