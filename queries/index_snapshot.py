"""The catalog's index (`embedded_impl.Index`) saved beside an embedded store, so that `paperkg serve`
reads it rather than derives it (issue 31.2).

Deriving the index from the store's rows was all of a big store's start (209k real abstracts: reading and
parsing ~1.5 million rows, then grouping them): Python work that every start repeated for a graph
that had not changed. A build now derives it once, after it commits (`save`; in the background for a
big store: `api.build.save_serving_index`; a server that found no current file has one saved the same
way, `api.deps`), and a server loads the file (`load`): msgpack decoded by msgspec,
numbers as flat arrays of native uint32 from which the index's tables are made in C (`zip`, `map`,
`dict`), so start is mostly reading a file (209k abstracts: 22 s of derivation became ~7 s).

Memory decides the encoding, as it decided the index's shape: every node is a number into one list
of node keys, so the loaded tables share the keys' string objects as the derived index does (a
string per reference would be ~300 MB more at 209k abstracts), and the per-paper edges' property
maps, a few thousand distinct ones, come back as one shared dict each. Node props go as columns
(one group per label and list of property names), a property's repeated values as numbers into one
table of its distinct values, and an entity's papers as numbers into the distinct (paper, edge props)
pairs, so that a value or a pair that recurs is one object where the derived index holds one per
use (a result's `kind`, `unit` and `evidence` sentence; 368k results and 5.3M mentions at the
synthetic 1M). Only a property whose values are all of one plain type (str, int or float) and repeat
enough is so shared (`_distinct`).

The file names the build generation it describes (`BuildState.generation`) and the byte order of its
numbers, and carries a CRC of its body: a file of another build, format or machine, or damaged, is
not used (`load` returns None and
the index is derived from the rows as before), so a missing or stale file costs start time, never a
wrong answer.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import math
import mmap
import os
import struct
import subprocess
import sys
import zlib
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import accumulate, chain, repeat
from operator import itemgetter
from pathlib import Path
from typing import Any

import msgspec

from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.store import collector_paused
from paperkg.queries.embedded_impl import Index, PathAdjacency

log = logging.getLogger("paperkg.queries")

FILE = "serving-index.msgpack"
LOCK_FILE = "serving-index.lock"
FORMAT = 8
_MAGIC = b"PKGIDX\x00\x01"
_LENGTHS = struct.Struct("<II")        # header length, CRC-32 of the body
_DIRS = ("out", "in")
_first, _second, _third, _fourth, _fifth = map(itemgetter, range(5))


class _Header(msgspec.Struct, array_like=True):
    format: int
    generation: str
    body_bytes: int
    byteorder: str           # of the uint32 arrays (`sys.byteorder` of the machine that wrote them)


class _Groups(msgspec.Struct, array_like=True):
    """A table of node -> lists of numbers, flat (native uint32 arrays): the `i`th owner's lists are
    `column[ends[i-1]:ends[i]]` of each column. A few big buffers rather than a Python list per node:
    decoding millions of small lists of ints left ~400 MB of freed but fragmented heap behind."""

    owners: bytes
    ends: bytes
    columns: list[bytes]


class _Values(msgspec.Struct, array_like=True):
    """A list of values: `values` themselves (`refs` None), or numbers (`refs`, uint32) into the
    distinct `values` when many repeat, so that a repeated value is one object in memory."""

    values: list[Any]
    refs: bytes | None = None


class _Column(msgspec.Struct, array_like=True):
    """One property of a group of nodes, in the group's order: `values` themselves, or (`refs`)
    numbers into the body's table of the property's distinct values, shared by every group (a result's
    `kind`, `unit`, `direction` or `evidence`, an entity's `type`: the synthetic 1M's 368k results held a
    string object apiece); `of_id`: each node's value is a list holding its own `id` (a paper's
    `ids`), made from the `id` column's strings."""

    name: str
    values: list[Any]
    refs: bytes | None = None
    of_id: bool = False


class _Props(msgspec.Struct, array_like=True):
    """The props of the nodes (positions in `keys`) that have one label and one list of property
    names, as columns: the dicts are made in C on load (`_props`)."""

    label: int
    nodes: bytes
    columns: list[_Column]


class _Body(msgspec.Struct, array_like=True):
    """The index as numbers into `keys` (nodes) and `shared` (per-paper edge props); arrays of numbers
    are native uint32 (`_u32`). Tables keep their order, which some answers follow."""

    keys: list[str]                                   # the nodes', sorted
    labels: list[str]
    props: list[_Props]                               # node props, by label and property names
    prop_tables: dict[str, list[Any]]                 # property: its distinct values, where shared
    shared: list[dict[str, Any]]                      # MENTIONS props maps, without `__labels__`
    by_key_names: list[str]                           # sorted (search needs them so)
    by_key: _Groups                                   # owners: positions in `by_key_names`
    by_type: list[tuple[str, bytes]]
    by_family: list[tuple[str, bytes]]
    ranked: bytes
    mention_pairs: tuple[bytes, bytes]                # distinct (paper, edge props) pairs
    papers_of: _Groups                                # entity: its papers' pairs, in `mention_pairs`
    mentions_of: _Groups                              # paper: entities, their edge props
    collections_of: _Groups
    introduces_of: _Groups
    papers_in: _Groups
    own_ids: bytes                                    # papers known by their own `id`
    paper_ids: list[str]                              # other record ids ...
    paper_by_id: bytes                                # ... and their papers
    relation_types: list[str]
    relations: _Groups                                # entity: types, directions (0 out), other ends
    supports: _Values                                 # of each relation, in `relations`' order
    confidences: _Values
    result_paper: tuple[bytes, bytes]                 # results, their papers
    link_types: list[str]
    result_links: _Groups                             # result: link types, entities
    results_of: _Groups                               # entity: link types, results
    latest_year: int | None
    years_of: tuple[bytes, list[dict[int, int]]]
    years_of_key: list[tuple[str, dict[int, int]]]
    introductions: list[tuple[int, list[dict[str, Any]]]]


if array("I").itemsize != 4:
    raise ImportError("the serving index's numbers are 4-byte unsigned ints: array('I') is not here")


def _u32(values: Iterable[int]) -> bytes:
    return array("I", values).tobytes()


def _ints(data: bytes) -> memoryview:
    return memoryview(data).cast("I")


def _groups(owners: Iterable[int], lists: Sequence[Sequence[Any]],
            *columns: Callable[[Iterable[Any]], Iterable[int]]) -> _Groups:
    """The table whose owners are `owners` and whose lists are `lists`: each column the numbers
    `column` makes of the lists' items, all lists one after the other (iterated in C)."""
    ends = _u32(accumulate(map(len, lists)))
    return _Groups(_u32(owners), ends, [_u32(column(chain.from_iterable(lists))) for column in columns])


def _distinct(values: list[Any]) -> dict[Any, int] | None:
    """Each distinct value's number, when many values repeat and all are of one plain type (str,
    int or float; a bool is not an int here, and float values holding -0.0 are left as they are: a
    dict of distinct values would fold -0.0 into 0.0). None: the values are better kept as they are."""
    kinds = set(map(type, values))
    if len(kinds) != 1 or (kind := kinds.pop()) not in (str, int, float):
        return None
    if kind is float and any(v == 0.0 and math.copysign(1.0, v) < 0 for v in values):
        return None
    distinct = dict.fromkeys(values)
    if len(distinct) > 0.75 * len(values):        # the numbers would cost more than they share
        return None
    return {v: i for i, v in enumerate(distinct)}


def _shared(values: list[Any]) -> _Values:
    ref = _distinct(values)
    return _Values(values) if ref is None else _Values(list(ref), _u32(map(ref.__getitem__, values)))


def _deref(table: list[Any], refs: bytes) -> list[Any]:
    """The values the numbers `refs` name in `table` (the distinct values), one object per value."""
    return list(map(table.__getitem__, _ints(refs)))


def _values(values: _Values) -> list[Any]:
    return values.values if values.refs is None else _deref(values.values, values.refs)


def _node_props(node_props: list[dict[str, Any]], label_of: Iterable[int]
                ) -> tuple[list[_Props], dict[str, list[Any]]]:
    """The nodes' props (without `__labels__`) grouped by label and property names, as columns, and
    the tables of the properties whose values repeat."""
    groups: dict[tuple[int, tuple[str, ...], tuple[str, ...]], list[int]] = {}
    by_name: dict[str, list[Any]] = {}
    for i, (props, label) in enumerate(zip(node_props, label_of, strict=True)):
        node_id = props.get("id")
        of_id = () if type(node_id) is not str else tuple(
            k for k, v in props.items()
            if k != "id" and type(v) is list and len(v) == 1 and type(v[0]) is str and v[0] == node_id)
        groups.setdefault((label, tuple(props), of_id), []).append(i)
        for k, v in props.items():
            by_name.setdefault(k, []).append(v)
    tables = {name: ref for name, values in by_name.items()
              if name != "id" and (ref := _distinct(values)) is not None}      # ids name one node each
    del by_name

    def column(name: str, members: list[int]) -> _Column:
        values = [node_props[i][name] for i in members]
        ref = tables.get(name)
        return _Column(name, values) if ref is None else _Column(name, [], _u32(map(ref.__getitem__, values)))

    props = [_Props(label, _u32(members), [_Column(name, [], of_id=True) if name in of_id
                                           else column(name, members) for name in names])
             for (label, names, of_id), members in groups.items()]
    return props, {name: list(ref) for name, ref in tables.items()}


def _props(groups: list[_Props], tables: dict[str, list[Any]], label_sets: list[set[str]], count: int
           ) -> tuple[list[dict[str, Any]], list[int]]:
    """Every node's props (its `__labels__` set last, shared by the nodes of a label) and label
    number, in node order, the dicts made in C from the columns."""
    props: list[Any] = [None] * count
    labels: list[Any] = [None] * count
    for group in groups:
        nodes = _ints(group.nodes)
        names = [c.name for c in group.columns]
        columns = {c.name: c.values if c.refs is None else _deref(tables[c.name], c.refs)
                   for c in group.columns if not c.of_id}
        for c in group.columns:
            if c.of_id:
                columns[c.name] = list(map(list, zip(columns["id"], strict=True)))
        # a column of another length than the group's nodes is a ValueError here (strict)
        rows = zip(*map(columns.__getitem__, names), repeat(label_sets[group.label], len(nodes)), strict=True)
        deque(map(props.__setitem__, nodes, map(dict, map(zip, repeat([*names, "__labels__"]), rows))),
              maxlen=0)
        deque(map(labels.__setitem__, nodes, repeat(group.label)), maxlen=0)
    if None in labels:
        raise ValueError("a node has no props")
    return props, labels


def _spans(groups: _Groups) -> Iterator[tuple[int, int, int]]:
    """(owner, start, end) of every group, in order: its slice of each column (iterated in C)."""
    ends = _ints(groups.ends)
    return zip(_ints(groups.owners), chain((0,), ends), ends, strict=False)


def path(store_dir: Path) -> Path:
    return Path(store_dir) / FILE


def encode(index: Index, generation: str) -> bytes:
    """The file's bytes for `index`, of build `generation`."""
    nodes = sorted(index.props)
    ref = {k: i for i, k in enumerate(nodes)}
    labels = sorted(set(index.label.values()))
    label_ref = {name: i for i, name in enumerate(labels)}
    # every MENTIONS edge's props map, once (most are shared by many edges), in the order first met
    distinct = {id(d): d for ds in index.mention_props.values() for d in ds}
    shared_ref = {key: i for i, key in enumerate(distinct)}
    shared = [{k: v for k, v in d.items() if k != "__labels__"} for d in distinct.values()]

    def share(ds: Iterable[dict[str, Any]]) -> Iterator[int]:
        return map(shared_ref.__getitem__, map(id, ds))

    def refs(nodes: Iterable[str]) -> Iterator[int]:
        return map(ref.__getitem__, nodes)

    def by_node(table: dict[str, list[str]]) -> _Groups:
        return _groups(refs(table), list(table.values()), refs)

    def table(mapping: dict[str, Any]) -> tuple[Iterator[int], list[Any]]:
        return refs(mapping), list(mapping.values())

    rtypes = sorted({r[0] for rows in index.relations.values() for r in rows})
    rtype_ref = {t: i for i, t in enumerate(rtypes)}
    link_types = sorted({t for links in index.result_links.values() for t in links})
    link_ref = {t: i for i, t in enumerate(link_types)}
    relations = list(index.relations.values())
    key_names = sorted(index.by_key)
    years_of = list(index.years_of.items())
    # the props without their `__labels__` sets (shared, made again on load), put back afterwards
    node_props = list(map(index.props.__getitem__, nodes))
    # an entity's papers as (paper, edge props) pairs: a paper's edges to its entities mostly share
    # one props map, so most pairs recur (rules mode, synthetic: 107,529 edges, 32,061 pairs), and
    # a pair is one tuple in memory wherever it recurs
    pair_ref: dict[tuple[int, int], int] = {}
    pair_lists = [[pair_ref.setdefault((ref[p], shared_ref[id(d)]), len(pair_ref)) for p, d in ps]
                  for ps in index.papers_of.values()]
    # a record id that is its paper's own `id` is taken from the paper's props on load (one string)
    own_ids: list[str] = []
    other_ids: dict[str, str] = {}
    for rid, node in index.paper_by_id.items():
        if index.props[node].get("id") == rid:
            own_ids.append(node)
        else:
            other_ids[rid] = node
    label_sets = [props.pop("__labels__", None) for props in node_props]
    try:
        groups, prop_tables = _node_props(node_props, map(label_ref.__getitem__,
                                                          map(index.label.__getitem__, nodes)))
        body = _Body(
            keys=nodes, labels=labels,
            props=groups, prop_tables=prop_tables, shared=shared,
            by_key_names=key_names,
            by_key=_groups(range(len(key_names)), [index.by_key[k] for k in key_names], refs),
            by_type=[(t, _u32(refs(v))) for t, v in index.by_type.items()],
            by_family=[(f, _u32(refs(v))) for f, v in index.by_family.items()],
            ranked=_u32(refs(index.ranked)),
            mention_pairs=(_u32(map(_first, pair_ref)), _u32(map(_second, pair_ref))),
            papers_of=_groups(refs(index.papers_of), pair_lists, lambda ps: ps),   # already numbers
            mentions_of=_groups(*table({p: list(zip(es, index.mention_props[p], strict=True))
                                        for p, es in index.mentions_of.items()}),
                                lambda ms: refs(map(_first, ms)), lambda ms: share(map(_second, ms))),
            collections_of=by_node(index.collections_of), introduces_of=by_node(index.introduces_of),
            papers_in=by_node(index.papers_in),
            own_ids=_u32(refs(own_ids)),
            paper_ids=list(other_ids), paper_by_id=_u32(refs(other_ids.values())),
            relation_types=rtypes,
            relations=_groups(refs(index.relations), relations,
                              lambda rs: map(rtype_ref.__getitem__, map(_first, rs)),
                              lambda rs: map(_DIRS.index, map(_second, rs)),
                              lambda rs: refs(map(_third, rs))),
            supports=_shared(list(map(_fourth, chain.from_iterable(relations)))),
            confidences=_shared(list(map(_fifth, chain.from_iterable(relations)))),
            result_paper=(_u32(refs(index.result_paper)), _u32(refs(index.result_paper.values()))),
            link_types=link_types,
            result_links=_groups(refs(index.result_links),
                                 [list(ls.items()) for ls in index.result_links.values()],
                                 lambda ls: map(link_ref.__getitem__, map(_first, ls)),
                                 lambda ls: refs(map(_second, ls))),
            results_of=_groups(*table(index.results_of),
                               lambda rs: map(link_ref.__getitem__, map(_first, rs)),
                               lambda rs: refs(map(_second, rs))),
            latest_year=index.latest_year,
            years_of=(_u32(refs(map(_first, years_of))), list(map(_second, years_of))),
            years_of_key=list(index.years_of_key.items()),
            introductions=[(ref[c], rows) for c, rows in index.introductions.items()],
        )
        data = msgspec.msgpack.encode(body)
    finally:
        for props, label_set in zip(node_props, label_sets, strict=True):
            if label_set is not None:
                props["__labels__"] = label_set
    header = msgspec.msgpack.encode(_Header(FORMAT, generation, len(data), sys.byteorder))
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


_START = len(_MAGIC) + _LENGTHS.size


def _header(head: Any) -> tuple[_Header, int, int]:
    """The header of a file whose first bytes (the whole header at least) are `head`, the CRC of its
    body and where the body starts; ValueError saying what is wrong when it has none."""
    if len(head) < _START or bytes(head[:len(_MAGIC)]) != _MAGIC:
        raise ValueError("is not a serving index")
    length, crc = _LENGTHS.unpack_from(head, len(_MAGIC))
    try:
        header = msgspec.msgpack.decode(head[_START:_START + length], type=_Header)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise ValueError("has a damaged header") from None
    if (header.format, header.byteorder) != (FORMAT, sys.byteorder):
        raise ValueError("is of another format or machine")
    return header, crc, _START + length


class _OtherBuild(ValueError):
    """A whole index, of another build than the one asked for: stale, not damaged."""


@contextlib.contextmanager
def _body_of(buf: memoryview, generation: str) -> Iterator[memoryview]:
    """The body of the index file `buf` while the block runs, when the file is a whole index of build
    `generation` (its header, the body's length and CRC); ValueError saying what is wrong otherwise
    (_OtherBuild for a whole index of another build). One check for loading and for deciding to save."""
    header, crc, start = _header(buf)
    if header.generation != generation:
        raise _OtherBuild("describes another build")
    with buf[start:] as data:
        if len(data) != header.body_bytes or zlib.crc32(data) != crc:
            raise ValueError("is damaged (length or CRC differs)")
        yield data


def _current(store_dir: Path, generation: str) -> bool:
    """Whether the file beside the store is a whole index of build `generation` (a file damaged past
    its header is saved again)."""
    try:
        with (open(path(store_dir), "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view,
              memoryview(view) as buf, _body_of(buf, generation)):
            return True
    except (OSError, ValueError):        # none, empty, or not a usable index
        return False


def generation_of(store_dir: Path) -> str | None:
    """The build generation the saved index describes (None: no usable file)."""
    try:
        with open(path(store_dir), "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view:
            return _header(view)[0].generation
    except (OSError, ValueError):        # none, empty, or not a usable index
        return None


def load(store_dir: Path, generation: str | None, lookups: dict[str, Any]) -> Index | None:
    """The index saved for build `generation` of the store at `store_dir`, or None (no file, another
    build's, another format, or damaged: the caller derives the index)."""
    if generation is None:
        return None
    try:
        with open(path(store_dir), "rb") as fh:
            view = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):      # none, unreadable, or empty
        log.info("no serving index beside the store %s: deriving it from the rows (the next build "
                 "saves one, as does `paperkg serve`)", store_dir)
        return None
    with view, collector_paused(keep=True):
        body = _read(view, generation, store_dir)
        if body is None:
            return None
        try:
            return _index(body, lookups)
        except (ValueError, IndexError, KeyError, TypeError) as err:   # whole, but not what it claims
            log.warning("%s does not describe an index (%s); deriving the index from the store",
                        path(store_dir), err)
            return None


def _read(view: mmap.mmap, generation: str, store_dir: Path) -> _Body | None:
    with memoryview(view) as buf:
        try:
            with _body_of(buf, generation) as data:
                return msgspec.msgpack.decode(data, type=_Body)
        except _OtherBuild:
            log.info("%s describes another build; deriving the index from the store", path(store_dir))
        except msgspec.DecodeError as err:     # whole, but not decodable as a body (ValidationError too)
            log.warning("%s is damaged (%s); deriving the index from the store", path(store_dir), err)
        except ValueError as err:
            log.warning("%s %s; deriving the index from the store", path(store_dir), err)
        return None


def _lists(groups: _Groups, key: Any) -> dict[str, list[str]]:
    values = _ints(groups.columns[0])
    return {key(owner): list(map(key, values[s:t])) for owner, s, t in _spans(groups)}


def _index(body: _Body, lookups: dict[str, Any]) -> Index:
    """The index `body` describes: each table made in C from the flat arrays, with the node keys'
    own string objects wherever a node is named."""
    keys = body.keys
    key = keys.__getitem__
    label_sets = [{name} for name in body.labels]
    mentions = {"MENTIONS"}
    for props in body.shared:
        props["__labels__"] = mentions
    shared = body.shared.__getitem__
    index = Index(lookups=lookups, from_file=True)
    node_props, label_of = _props(body.props, body.prop_tables, label_sets, len(keys))
    index.props = dict(zip(keys, node_props, strict=True))
    index.label = dict(zip(keys, map(body.labels.__getitem__, label_of), strict=True))
    names = body.by_key_names
    by_key = _ints(body.by_key.columns[0])
    index.by_key = {names[i]: list(map(key, by_key[s:t])) for i, s, t in _spans(body.by_key)}
    index.by_type = {t: list(map(key, _ints(ns))) for t, ns in body.by_type}
    index.by_family = {f: list(map(key, _ints(ns))) for f, ns in body.by_family}
    index.ranked = list(map(key, _ints(body.ranked)))
    index.rank = dict(zip(index.ranked, range(len(index.ranked)), strict=True))
    pair_papers, pair_props = map(_ints, body.mention_pairs)
    pairs = list(zip(map(key, pair_papers), map(shared, pair_props), strict=True))
    pair = pairs.__getitem__
    paper_pairs = _ints(body.papers_of.columns[0])
    index.papers_of = {key(e): list(map(pair, paper_pairs[s:t])) for e, s, t in _spans(body.papers_of)}
    entities, props = map(_ints, body.mentions_of.columns)
    index.mentions_of = {key(p): list(map(key, entities[s:t])) for p, s, t in _spans(body.mentions_of)}
    index.mention_props = {key(p): list(map(shared, props[s:t])) for p, s, t in _spans(body.mentions_of)}
    index.collections_of = _lists(body.collections_of, key)
    index.introduces_of = _lists(body.introduces_of, key)
    index.papers_in = _lists(body.papers_in, key)
    own = list(map(key, _ints(body.own_ids)))
    index.paper_by_id = dict(zip(map(itemgetter("id"), map(index.props.__getitem__, own)), own, strict=True))
    index.paper_by_id.update(zip(body.paper_ids, map(key, _ints(body.paper_by_id)), strict=True))
    rtype, direction = body.relation_types.__getitem__, _DIRS.__getitem__
    types, dirs, others = map(_ints, body.relations.columns)
    supports, confidences = _values(body.supports), _values(body.confidences)
    index.relations = {
        key(e): list(zip(map(rtype, types[s:t]), map(direction, dirs[s:t]), map(key, others[s:t]),
                         supports[s:t], confidences[s:t], strict=True))
        for e, s, t in _spans(body.relations)}
    results, result_papers = body.result_paper
    index.result_paper = dict(zip(map(key, _ints(results)), map(key, _ints(result_papers)), strict=True))
    link = body.link_types.__getitem__
    types, ends = map(_ints, body.result_links.columns)
    index.result_links = {key(r): dict(zip(map(link, types[s:t]), map(key, ends[s:t]), strict=True))
                          for r, s, t in _spans(body.result_links)}
    types, ends = map(_ints, body.results_of.columns)
    index.results_of = {key(e): list(zip(map(link, types[s:t]), map(key, ends[s:t]), strict=True))
                        for e, s, t in _spans(body.results_of)}
    index.years_of = dict(zip(map(key, _ints(body.years_of[0])), body.years_of[1], strict=True))
    index.years_of_key = dict(body.years_of_key)
    index.latest_year = body.latest_year
    index.path_adj = PathAdjacency(index.relations, index.papers_of, index.mentions_of)
    index.introductions = {key(c): rows for c, rows in body.introductions}
    index.key_owner = names
    index.key_starts = list(accumulate((len(k) + 1 for k in names), initial=0))[:-1]
    index.key_blob = "\x00".join(names) + "\x00"
    return index

def save(store_dir: str | Path) -> Path | None:
    """Derive the catalog index of the embedded store at `store_dir` from its rows and save it beside
    the store, unless the one saved there is a whole index of its build already: what a build runs after it
    commits (in the background by default: `api.build.save_serving_index`). Returns the file
    written, None when there was nothing to do.

    Saves of one store take turns (a lock file): two builds in a row start two saves, and the later
    one then finds the file current. An index of a build that a newer build replaced while it was
    derived is not written: it could only replace a newer file with a stale one."""
    store = EmbeddedStore(Path(store_dir))
    try:
        with open(store.path / LOCK_FILE, "a+b") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            generation = store.state.generation()
            if generation is None or _current(store.path, generation):
                return None
            with store.view_rows() as rows:
                index = Index.from_rows(rows.nodes(), rows.edges(), store.lookups())
            if not rows.generation or rows.generation != store.state.generation():
                return None
            return write(store.path, index, rows.generation)
    finally:
        store.close()


def save_in_background(store_dir: str | Path) -> None:
    """Start `save` of `store_dir` in a detached, low-priority process (`main`) and return: what a
    big build does once it has committed, and what a server does when it had to derive the index at
    start (no current file), so that its next start reads one. The process outlives its parent; the
    lock in `save` makes two of them take turns, and the later one finds the file current."""
    subprocess.Popen([sys.executable, "-m", "paperkg.queries.index_snapshot", str(store_dir)],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m paperkg.queries.index_snapshot STORE`: save the serving index of STORE, at a low
    priority (what a build starts in the background when it has committed)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) != 1:
        print("usage: python -m paperkg.queries.index_snapshot STORE_DIR", file=sys.stderr)
        return 2
    os.nice(10)
    logging.basicConfig(level=logging.WARNING, format="paperkg: %(message)s")
    try:
        save(args[0])
    except Exception as err:       # the store is served without it (derived at start): say why, once
        log.warning("the serving index of %s was not saved: %s", args[0], err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
