"""`paperkg curate ...` and `paperkg review`: the CLI of `graph/curation.py` and `graph/review.py`,
through `api/curate.py` as the Python API and the routes go.

Corrections live in the build state of the `--store` directory; with `--neo4j` the store directory
keeps them and Neo4j receives what they change, as a build does."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from paperkg.api import curate as corrections_of
from paperkg.api.cli import _build_target, _print_json, _waiting, handle_errors, printable, store_options
from paperkg.graph import curation


def _apply(kwargs: dict[str, Any], corrections: list[curation.Correction], *, strict: bool = True,
           path: Path | None = None) -> None:
    """Record `corrections` (or, with `path`, those of a JSON Lines file) and say what happened."""
    store_dir, target = _build_target(kwargs)
    try:
        if path is not None:
            applied = corrections_of.import_file(store_dir, path, target=target, on_wait=_waiting(store_dir))
        else:
            applied = corrections_of.correct(store_dir, corrections, target=target, strict=strict,
                                             on_wait=_waiting(store_dir))
    finally:
        if target is not None:
            target.close()
    for c in applied.corrections:
        click.echo(printable(f"{c.describe()}: recorded"))
    unchanged = "" if applied.changed else " (the graph is unchanged)"
    click.echo(f"{applied.papers} papers derived again{unchanged}")
    _warn_not_applying(applied.not_applying)


def _warn_not_applying(statuses: list[curation.Status]) -> None:
    for s in statuses:
        click.echo(printable(f"paperkg: warning: correction {s.correction.describe()} does not apply: "
                             f"{s.reason}"), err=True)


@click.group()
def curate() -> None:
    """Correct the graph: merge, rename, retype, drop or split entities. Corrections are kept in the
    store and apply to every later build; NAME is any name or alias of an entity (or its id)."""


@curate.command()
@click.argument("name")
@click.argument("into")
@store_options
@handle_errors
def merge(name: str, into: str, **kwargs: Any) -> None:
    """Merge the entity NAME into the entity INTO (which keeps its name and id)."""
    _apply(kwargs, [curation.validate("merge", name, into)])


@curate.command()
@click.argument("name")
@click.argument("new")
@store_options
@handle_errors
def rename(name: str, new: str, **kwargs: Any) -> None:
    """Show the entity NAME as NEW (its id and old names stay)."""
    _apply(kwargs, [curation.validate("rename", name, new)])


@curate.command()
@click.argument("name")
@click.argument("type_", metavar="TYPE")
@store_options
@handle_errors
def retype(name: str, type_: str, **kwargs: Any) -> None:
    """Make the entity NAME of TYPE (Method, Model, Dataset, Benchmark, Metric, Task)."""
    _apply(kwargs, [curation.validate("retype", name, type_)])


@curate.command()
@click.argument("name")
@store_options
@handle_errors
def drop(name: str, **kwargs: Any) -> None:
    """Drop the entity NAME and every mention of it, now and in later builds."""
    _apply(kwargs, [curation.validate("drop", name)])


@curate.command()
@click.argument("name")
@store_options
@handle_errors
def split(name: str, **kwargs: Any) -> None:
    """Split the entity NAME by context: each paper's mentions join the entity of the type that
    paper gives them (`MAE` the Metric apart from `MAE` the Method)."""
    _apply(kwargs, [curation.validate("split", name)])


@curate.command()
@click.argument("name")
@store_options
@handle_errors
def undo(name: str, **kwargs: Any) -> None:
    """Take back the corrections of NAME (the name they were made with)."""
    store_dir, target = _build_target(kwargs)
    try:
        removed = corrections_of.undo(store_dir, name, target=target, on_wait=_waiting(store_dir))
    finally:
        if target is not None:
            target.close()
    for c in removed:
        click.echo(printable(f"{c.describe()}: taken back"))


@curate.command("list")
@store_options
@click.option("--json", "as_json", is_flag=True, help="One JSON array.")
@handle_errors
def list_(as_json: bool, **kwargs: Any) -> None:
    """The corrections, in the order they were made, and whether each applies."""
    statuses = corrections_of.listing(kwargs["store"], neo4j=kwargs["neo4j_uri"])
    if as_json:
        _print_json([s.to_json() for s in statuses])
        return
    for s in statuses:
        click.echo("\t".join(printable(cell) for cell in (
            s.correction.describe(), "applies" if s.applies else "does not apply: " + s.reason)))
    if not statuses:
        click.echo("no corrections", err=True)


@curate.command("export")
@click.argument("out", type=click.Path(dir_okay=False, writable=True))
@store_options
@handle_errors
def export_(out: str, **kwargs: Any) -> None:
    """Write the corrections to OUT as JSON Lines (one correction a line), to version and share."""
    count = corrections_of.export(kwargs["store"], out, neo4j=kwargs["neo4j_uri"])
    click.echo(f"wrote {count} corrections to {out}", err=True)


@curate.command("import")
@click.argument("path", type=click.Path(dir_okay=False))
@store_options
@handle_errors
def import_(path: str, **kwargs: Any) -> None:
    """Record the corrections of a JSON Lines file (`curate export`); one naming an entity this
    graph lacks is kept and reported as not applying."""
    _apply(kwargs, [], path=Path(path))


@click.command()
@store_options
@click.option("--limit", type=click.IntRange(1, 1000), default=20, show_default=True)
@click.option("--accept", type=click.IntRange(1, 1000), default=None, metavar="N",
              help="Record item N's suggested correction.")
@click.option("--json", "as_json", is_flag=True, help="One JSON array.")
@handle_errors
def review(limit: int, accept: int | None, as_json: bool, **kwargs: Any) -> None:
    """The facts a correction would most improve, worst first: unsure entities many papers mention,
    acronyms typed two ways, names that differ only in case or plural; each with a suggestion."""
    items = corrections_of.review(kwargs["store"], max(limit, accept or 0), neo4j=kwargs["neo4j_uri"])
    if accept is not None:
        if accept > len(items):
            raise click.UsageError(f"the queue has {len(items)} items")
        _apply(kwargs, [items[accept - 1].suggestion], strict=False)
        return
    if as_json:
        _print_json([item.to_json() for item in items])
        return
    for number, item in enumerate(items, 1):
        click.echo("\t".join(printable(cell) for cell in (
            str(number), item.kind, item.reason, "suggested: " + item.suggestion.describe())))
    if not items:
        click.echo("nothing to review", err=True)
    sys.stdout.flush()
