"""The catalog's index (`embedded_impl.Index`) saved beside an embedded store, so that `paperkg serve`
reads it rather than derives it (issue 31.2).

Deriving the index from the store's rows was all of a big store's start (209k real abstracts: reading and
parsing ~1.5 million rows, then grouping them): Python work that every start repeated for a graph
that had not changed. A build now derives it once, after it commits (`write`), and a server loads the
file (`load`): msgpack decoded by msgspec into flat lists, which the index's tables are made of in C
(`zip`, `map`, `dict`), so start is reading a file.

Memory decides the encoding, as it decided the index's shape: every node is a number into one list
of node keys, so the loaded tables share the keys' string objects as the derived index does (a
string per reference would be ~300 MB more at 209k abstracts), and the per-paper edges' property
maps, a few thousand distinct ones, come back as one shared dict each.

The file names the build generation it describes (`BuildState.generation`) and carries a CRC of its
body: a file of another build, an older format, or damaged, is not used (`load` returns None and
the index is derived from the rows as before), so a missing or stale file costs start time, never a
wrong answer.
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import os
import struct
import zlib
from collections.abc import Iterable
from itertools import accumulate
from operator import itemgetter
from pathlib import Path
from typing import Any

import msgspec

from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.store import collector_paused
from paperkg.queries.embedded_impl import Index

log = logging.getLogger("paperkg.queries")

FILE = "serving-index.msgpack"
FORMAT = 1
_MAGIC = b"PKGIDX\x00\x01"
_LENGTHS = struct.Struct("<II")        # header length, CRC-32 of the body
_DIRS = ("out", "in")
_first, _second = itemgetter(0), itemgetter(1)


class _Header(msgspec.Struct, array_like=True):
    format: int
    generation: str
    body_bytes: int


class _Body(msgspec.Struct, array_like=True):
    """The index as numbers into `keys` (nodes) and `shared` (per-paper edge props). Lists of
    (node, values...) keep each table's order, which some answers follow."""

    keys: list[str]
    labels: list[str]
    label_of: list[int]
    props: list[dict[str, Any]]                       # per node (`__labels__` replaced on load)
    shared: list[dict[str, Any]]                      # without `__labels__`
    shared_label: list[int]                           # the edge type of each, into `labels`
    by_key: list[tuple[str, list[int]]]               # sorted by key (search needs them so)
    by_type: list[tuple[str, list[int]]]
    by_family: list[tuple[str, list[int]]]
    ranked: list[int]
    papers_of: list[tuple[int, list[int], list[int]]]     # entity, papers, their edge props
    mentions_of: list[tuple[int, list[int], list[int]]]   # paper, entities, their edge props
    collections_of: list[tuple[int, list[int]]]
    introduces_of: list[tuple[int, list[int]]]
    papers_in: list[tuple[int, list[int]]]
    paper_by_id: list[tuple[str, int]]
    relation_types: list[str]
    # entity, relation types, directions (0 out, 1 in), other ends, supports, confidences
    relations: list[tuple[int, list[int], list[int], list[int], list[Any], list[Any]]]
    result_paper: list[tuple[int, int]]
    result_links: list[tuple[int, list[str], list[int]]]
    results_of: list[tuple[int, list[str], list[int]]]
    papers_by_year: list[tuple[int, list[int]]]
    years_of: list[tuple[int, dict[int, int]]]
    years_of_key: list[tuple[str, dict[int, int]]]
    path_adj: list[tuple[int, list[int]]]              # entities only; a paper's is its mentions
    introductions: list[tuple[int, list[dict[str, Any]]]]


def path(store_dir: Path) -> Path:
    return Path(store_dir) / FILE


def encode(index: Index, generation: str) -> bytes:
    """The file's bytes for `index`, of build `generation`."""
    keys = sorted(index.props)
    ref = {k: i for i, k in enumerate(keys)}
    labels = sorted(set(index.label.values()) | {"MENTIONS"})
    label_ref = {name: i for i, name in enumerate(labels)}
    # every MENTIONS edge's props map, once (most are shared by many edges), in the order first met
    distinct = {id(d): d for ds in index.mention_props.values() for d in ds}
    shared_ref = {key: i for i, key in enumerate(distinct)}
    shared = [{k: v for k, v in d.items() if k != "__labels__"} for d in distinct.values()]

    def share(ds: Iterable[dict[str, Any]]) -> list[int]:
        return list(map(shared_ref.__getitem__, map(id, ds)))

    def refs(nodes: Any) -> list[int]:
        return list(map(ref.__getitem__, nodes))

    def by_node(table: dict[str, Any]) -> list[tuple[int, list[int]]]:
        return [(ref[k], refs(v)) for k, v in table.items()]

    rtypes = sorted({r[0] for rows in index.relations.values() for r in rows})
    rtype_ref = {t: i for i, t in enumerate(rtypes)}
    body = _Body(
        keys=keys, labels=labels,
        label_of=list(map(label_ref.__getitem__, map(index.label.__getitem__, keys))),
        props=list(map(index.props.__getitem__, keys)),     # `__labels__` comes as a list
        shared=shared, shared_label=[label_ref["MENTIONS"]] * len(shared),
        by_key=[(k, refs(index.by_key[k])) for k in sorted(index.by_key)],
        by_type=[(t, refs(v)) for t, v in index.by_type.items()],
        by_family=[(f, refs(v)) for f, v in index.by_family.items()],
        ranked=refs(index.ranked),
        papers_of=[(ref[e], refs(map(_first, ps)), share(map(_second, ps)))
                   for e, ps in index.papers_of.items()],
        mentions_of=[(ref[p], refs(es), share(index.mention_props[p]))
                     for p, es in index.mentions_of.items()],
        collections_of=by_node(index.collections_of), introduces_of=by_node(index.introduces_of),
        papers_in=by_node(index.papers_in),
        paper_by_id=[(rid, ref[p]) for rid, p in index.paper_by_id.items()],
        relation_types=rtypes,
        relations=[(ref[e], list(map(rtype_ref.__getitem__, ts)), list(map(_DIRS.index, ds)), refs(os_),
                     list(ss), list(cs)) for e, (ts, ds, os_, ss, cs) in
                   ((e, zip(*rs, strict=True)) for e, rs in index.relations.items())],
        result_paper=[(ref[r], ref[p]) for r, p in index.result_paper.items()],
        result_links=[(ref[r], list(links), refs(links.values()))
                      for r, links in index.result_links.items()],
        results_of=[(ref[e], list(map(_first, rs)), refs(map(_second, rs)))
                    for e, rs in index.results_of.items()],
        papers_by_year=[(y, refs(ps)) for y, ps in index.papers_by_year.items()],
        years_of=[(ref[e], ys) for e, ys in index.years_of.items()],
        years_of_key=list(index.years_of_key.items()),
        path_adj=[(ref[n], refs(adj)) for n, adj in index.path_adj.items() if n not in index.mentions_of],
        introductions=[(ref[c], rows) for c, rows in index.introductions.items()],
    )
    data = msgspec.msgpack.encode(body)
    header = msgspec.msgpack.encode(_Header(FORMAT, generation, len(data)))
    return _MAGIC + _LENGTHS.pack(len(header), zlib.crc32(data)) + header + data


def write(store_dir: Path, index: Index, generation: str) -> Path:
    """Save `index` (of build `generation`) beside the store at `store_dir`, atomically: a server
    starting meanwhile reads the old file or the new one, never half of one."""
    target = path(store_dir)
    tmp = target.with_name(f".{FILE}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(encode(index, generation))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return target


def generation_of(store_dir: Path) -> str | None:
    """The build generation the saved index describes (None: no usable file)."""
    try:
        with open(path(store_dir), "rb") as fh:
            head = fh.read(len(_MAGIC) + _LENGTHS.size)
            if len(head) < len(_MAGIC) + _LENGTHS.size or not head.startswith(_MAGIC):
                return None
            length, _ = _LENGTHS.unpack_from(head, len(_MAGIC))
            header = msgspec.msgpack.decode(fh.read(length), type=_Header)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return header.generation if header.format == FORMAT else None


def load(store_dir: Path, generation: str | None, lookups: dict[str, Any]) -> Index | None:
    """The index saved for build `generation` of the store at `store_dir`, or None (no file, another
    build's, another format, or damaged: the caller derives the index)."""
    if generation is None:
        return None
    try:
        with open(path(store_dir), "rb") as fh:
            view = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):      # none, unreadable, or empty
        return None
    with view, collector_paused(keep=True):
        body = _read(view, generation, store_dir)
        return None if body is None else _index(body, lookups)


def _read(view: mmap.mmap, generation: str, store_dir: Path) -> _Body | None:
    start = len(_MAGIC) + _LENGTHS.size
    if len(view) < start or view[:len(_MAGIC)] != _MAGIC:
        log.warning("%s is not a serving index; deriving the index from the store", path(store_dir))
        return None
    length, crc = _LENGTHS.unpack_from(view, len(_MAGIC))
    with memoryview(view) as buf:
        try:
            header = msgspec.msgpack.decode(buf[start:start + length], type=_Header)
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.warning("%s has a damaged header; deriving the index from the store", path(store_dir))
            return None
        if header.format != FORMAT or header.generation != generation:
            log.info("%s describes another build or format; deriving the index from the store",
                     path(store_dir))
            return None
        data = buf[start + length:]
        try:
            if len(data) != header.body_bytes or zlib.crc32(data) != crc:
                raise msgspec.DecodeError("length or CRC differs")
            return msgspec.msgpack.decode(data, type=_Body)
        except (msgspec.DecodeError, msgspec.ValidationError) as err:
            log.warning("%s is damaged (%s); deriving the index from the store", path(store_dir), err)
            return None
        finally:
            data.release()


def _index(body: _Body, lookups: dict[str, Any]) -> Index:
    """The index `body` describes: each table made in C from the flat lists, with the node keys'
    own string objects wherever a node is named."""
    keys = body.keys
    key = keys.__getitem__
    label_sets = [{name} for name in body.labels]
    label_names = [next(iter(s)) for s in label_sets]
    for props, label in zip(body.props, body.label_of, strict=True):
        props["__labels__"] = label_sets[label]
    for props, label in zip(body.shared, body.shared_label, strict=True):
        props["__labels__"] = label_sets[label]
    shared = body.shared.__getitem__
    index = Index(lookups=lookups)
    index.props = dict(zip(keys, body.props, strict=True))
    index.label = dict(zip(keys, map(label_names.__getitem__, body.label_of), strict=True))
    index.by_key = {k: list(map(key, ns)) for k, ns in body.by_key}
    index.by_type = {t: list(map(key, ns)) for t, ns in body.by_type}
    index.by_family = {f: list(map(key, ns)) for f, ns in body.by_family}
    index.ranked = list(map(key, body.ranked))
    index.rank = dict(zip(index.ranked, range(len(index.ranked)), strict=True))
    index.papers_of = {key(e): list(zip(map(key, ps), map(shared, ds), strict=True))
                       for e, ps, ds in body.papers_of}
    index.mentions_of = {key(p): list(map(key, es)) for p, es, _ in body.mentions_of}
    index.mention_props = {key(p): list(map(shared, ds)) for p, _, ds in body.mentions_of}
    index.collections_of = {key(p): list(map(key, cs)) for p, cs in body.collections_of}
    index.introduces_of = {key(p): list(map(key, es)) for p, es in body.introduces_of}
    index.papers_in = {key(c): list(map(key, ps)) for c, ps in body.papers_in}
    index.paper_by_id = {rid: key(p) for rid, p in body.paper_by_id}
    rtype, direction = body.relation_types.__getitem__, _DIRS.__getitem__
    index.relations = {
        key(e): list(zip(map(rtype, ts), map(direction, ds), map(key, os_), ss, cs, strict=True))
        for e, ts, ds, os_, ss, cs in body.relations}
    index.result_paper = {key(r): key(p) for r, p in body.result_paper}
    index.result_links = {key(r): dict(zip(ts, map(key, es), strict=True)) for r, ts, es in body.result_links}
    index.results_of = {key(e): list(zip(ts, map(key, rs), strict=True)) for e, ts, rs in body.results_of}
    index.papers_by_year = {y: list(map(key, ps)) for y, ps in body.papers_by_year}
    index.years_of = {key(e): ys for e, ys in body.years_of}
    index.years_of_key = dict(body.years_of_key)
    index.latest_year = max(index.papers_by_year, default=None)
    index.path_adj = {**{key(n): set(map(key, adj)) for n, adj in body.path_adj}, **index.mentions_of}
    index.introductions = {key(c): rows for c, rows in body.introductions}
    index.key_owner = [k for k, _ in body.by_key]
    index.key_starts = list(accumulate((len(k) + 1 for k in index.key_owner), initial=0))[:-1]
    index.key_blob = "\x00".join(index.key_owner) + "\x00"
    return index



def save(store_dir: str | Path) -> Path | None:
    """Derive the catalog index of the embedded store at `store_dir` from its rows and save it beside
    the store, unless the one saved there is of its build already: what a build or a correction
    runs after it commits. Returns the file written, None when it was current."""
    store = EmbeddedStore(Path(store_dir))
    try:
        generation = store.state.generation()
        if generation is None or generation_of(store.path) == generation:
            return None
        with store.view_rows() as rows:
            index = Index.from_rows(rows.nodes(), rows.edges(), store.lookups())
        return write(store.path, index, rows.generation) if rows.generation else None
    finally:
        store.close()
