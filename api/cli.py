"""The `paperkg` command. stdout carries only results; messages, warnings and the progress bar
(on a terminal only) go to stderr. Exit codes follow sysexits (`EXIT_CODES`): 2 usage, 65 bad data,
66 not found, 69 store unavailable, 70 a bug of ours, 73 a store that cannot be written, 74 a full
disk or a damaged store."""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar, TypeVar

import click

from paperkg.graph.errors import (
    BadInputError,
    ClusterUnavailableError,
    InputNotFoundError,
    PaperkgError,
    ParameterUsageError,
    StoreIOError,
    StoreNotWritableError,
    StoreUnavailableError,
    UnknownQueryError,
    UsageError,
)
from paperkg.graph.secrets import install_log_redaction, redact, register_secret
from paperkg.graph.store import DEFAULT_STORE, GraphStore, open_store

# sysexits(3) codes by error class; an error takes the code of the first class in its MRO listed
# here, so a subclass (NotFoundError, QueryRefusedError, QueryTimeoutError) shares its parent's.
EXIT_CODES: dict[type[PaperkgError], int] = {
    # One code for every usage error: click's own (an unknown option or command, a malformed
    # --param) and ours (an unknown query or parameter name, a missing parameter). sysexits'
    # EX_USAGE is 64; 2 is what click already answers and what shells' builtins use.
    UsageError: 2,
    UnknownQueryError: 2,
    ParameterUsageError: 2,
    BadInputError: 65,              # EX_DATAERR
    InputNotFoundError: 66,         # EX_NOINPUT
    StoreUnavailableError: 69,      # EX_UNAVAILABLE
    StoreNotWritableError: 73,      # EX_CANTCREAT
    StoreIOError: 74,               # EX_IOERR: disk full, a damaged store, a failing disk
    ClusterUnavailableError: 69,
    PaperkgError: 1,
}


def exit_code(err: PaperkgError) -> int:
    """The process exit code for `err` (`EXIT_CODES`, by the most specific class listed)."""
    return next(EXIT_CODES[cls] for cls in type(err).__mro__ if cls in EXIT_CODES)


def _fail(err: PaperkgError) -> None:
    click.echo(printable(redact(f"paperkg: error: {err}")), err=True)
    sys.exit(exit_code(err))


def handle_errors(func: Callable) -> Callable:
    """Turn the project's errors into one line on stderr and its exit code."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except PaperkgError as err:
            _fail(err)
        except KeyboardInterrupt:
            click.echo("paperkg: interrupted; the store is unchanged", err=True)
            sys.exit(130)
        except BrokenPipeError:
            sys.stderr.close()
            sys.exit(0)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as err:  # a bug of ours: one line, the traceback only on request
            if os.environ.get("PAPERKG_DEBUG"):
                raise
            click.echo(redact(f"paperkg: internal error: {type(err).__name__}: {err} "
                              "(set PAPERKG_DEBUG=1 for the traceback and report it)"), err=True)
            sys.exit(70)

    return wrapper


def store_options(func: Callable) -> Callable:
    """--store or --neo4j (with credentials), each also from the environment."""
    options = [
        click.option("--store", "store", envvar="PAPERKG_STORE", default=DEFAULT_STORE, show_default=True,
                     type=click.Path(file_okay=False), help="Embedded store directory [env PAPERKG_STORE]."),
        click.option("--neo4j", "neo4j_uri", envvar="PAPERKG_NEO4J_URI", default=None, metavar="URI",
                     help="Use a Neo4j server instead, e.g. bolt://localhost:7687 [env PAPERKG_NEO4J_URI]."),
        click.option("--neo4j-user", envvar="PAPERKG_NEO4J_USER", default=None,
                     help="[env PAPERKG_NEO4J_USER]"),
        # No password option: a command line is visible to every user of `ps`. The environment, a
        # file (mode 600, say) or a prompt keep it out of there.
        click.option("--neo4j-password-file", envvar="PAPERKG_NEO4J_PASSWORD_FILE", default=None,
                     type=click.Path(dir_okay=False), metavar="FILE",
                     help="Read the Neo4j password from FILE (first line) [env PAPERKG_NEO4J_PASSWORD_FILE; "
                          "or set PAPERKG_NEO4J_PASSWORD]."),
        click.option("--neo4j-password-prompt", is_flag=True, default=False,
                     help="Ask for the Neo4j password on the terminal."),
        click.option("--neo4j-password", "neo4j_password_arg", default=None, hidden=True, expose_value=True),
        click.option("--neo4j-database", envvar="PAPERKG_NEO4J_DATABASE", default=None,
                     help="Database name (default: the server's default) [env PAPERKG_NEO4J_DATABASE]."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def neo4j_password(kwargs: dict[str, Any]) -> str | None:
    """The Neo4j password from `--neo4j-password-file`, `--neo4j-password-prompt` or
    PAPERKG_NEO4J_PASSWORD (in that order); pops the options from `kwargs`. Registered as a secret,
    so no message shows it."""
    path, prompt = kwargs.pop("neo4j_password_file", None), kwargs.pop("neo4j_password_prompt", False)
    if kwargs.pop("neo4j_password_arg", None) is not None:
        raise click.UsageError("--neo4j-password would show the password to every user of `ps`: set "
                               "PAPERKG_NEO4J_PASSWORD, or use --neo4j-password-file FILE or "
                               "--neo4j-password-prompt")
    if path:
        try:
            with open(path, encoding="utf-8") as fh:
                password: str | None = fh.readline().rstrip("\r\n")
        except OSError as err:
            raise click.UsageError(f"cannot read the password file {path}: {err.strerror}") from err
    elif prompt:
        password = click.prompt("Neo4j password", hide_input=True, err=True)
    else:
        password = os.environ.get("PAPERKG_NEO4J_PASSWORD") or None
    register_secret(password)
    return password


def _open(kwargs: dict[str, Any], *, create: bool = False) -> GraphStore:
    password = neo4j_password(kwargs)
    return open_store(
        kwargs.pop("store"), kwargs.pop("neo4j_uri"), kwargs.pop("neo4j_user"),
        password, kwargs.pop("neo4j_database"), create=create,
    )


def _build_target(kwargs: dict[str, Any]) -> tuple[str, GraphStore | None]:
    """Where a build keeps its state (--store), and the Neo4j store it also writes (--neo4j)."""
    from paperkg.api.build import open_target

    store_dir = kwargs.pop("store")
    password = neo4j_password(kwargs)
    uri = kwargs.pop("neo4j_uri")
    replace = kwargs.pop("replace_neo4j_graph", False)
    if not uri:
        return store_dir, None
    target = open_target(uri, kwargs.pop("neo4j_user"), password, kwargs.pop("neo4j_database"),
                         replace=replace)
    return store_dir, target


def _say(message: str) -> None:
    click.echo(f"paperkg: {message}", err=True)


def _waiting(store_dir: str) -> Callable[[], None]:
    def say() -> None:
        click.echo(f"paperkg: waiting for another build of {store_dir} to finish", err=True)

    return say


MAX_SHOWN_PROBLEMS = 20
T = TypeVar("T")


def printable(text: str) -> str:
    """`text` with control characters escaped (`\\n`, `\\x1b`): a file name or value holding a
    newline or a terminal escape cannot forge another message line or recolour the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


class _Reporter:
    """Input problems on stderr: the first MAX_SHOWN_PROBLEMS one line each, the rest counted and
    summarised by `finish` (100k bad lines are one screen, not 100k lines)."""

    def __init__(self) -> None:
        self.shown = 0
        self.hidden: dict[str, int] = {}

    def __call__(self, problem: object) -> None:
        severity = getattr(problem, "severity", "warning")
        if self.shown < MAX_SHOWN_PROBLEMS:
            self.shown += 1
            click.echo(printable(redact(f"paperkg: {severity}: {problem}")), err=True)
        else:
            self.hidden[severity] = self.hidden.get(severity, 0) + 1

    def finish(self) -> None:
        if self.hidden:
            counts = ", ".join(f"{n} {severity}(s)" for severity, n in sorted(self.hidden.items()))
            click.echo(f"paperkg: ... and {counts} more, not shown (only the first {MAX_SHOWN_PROBLEMS} "
                       "problems are printed)", err=True)


def _on_terminal(quiet: bool) -> bool:
    """Whether progress (the loading line, the bar) is shown: on a terminal, unless --quiet. A pipe
    or a log file gets results and problems only."""
    return not quiet and sys.stderr.isatty()


def new_bar(file: Any = None, get_time: Callable[[], float] | None = None) -> Any:
    """A rich progress display for `progress_bar` on `file` (stderr), on clock `get_time`."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("extracting"), BarColumn(), MofNCompleteColumn(), TextColumn("abstracts"),
               TaskProgressColumn(), TextColumn("{task.fields[rate]}"), TimeRemainingColumn())
    return Progress(*columns, console=Console(file=file or sys.stderr, highlight=False), get_time=get_time,
                    speed_estimate_period=30)


def progress_bar(items: Iterable[T], total: int, *, bar: Any = None) -> Iterator[T]:
    """`items` counted on a bar of `total` abstracts (`bar`, else `new_bar()` on stderr), with the
    rate and a rate-based ETA.

    The clock starts when the first item arrives, not when the bar is made: the extractor loads
    its pipeline before the first abstract comes back (~4 s), and counting that time as extraction
    put the ETA 100 times too far at the start. The ETA is rich's, from the rate over the last 30 s,
    so it follows a rate that changes (a slow batch, another process on the machine)."""
    bar = bar or new_bar()
    with bar:
        task = bar.add_task("extracting", total=total, start=False, rate="")
        for n, item in enumerate(items):
            if n == 0:
                bar.start_task(task)
            yield item
            speed = bar.tasks[0].speed
            bar.update(task, advance=1, rate=f"{speed:,.0f}/s" if speed else "")


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=None))


def _parse_params(pairs: tuple[str, ...]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise click.UsageError(f"--param takes NAME=VALUE, got {pair!r}")
        params[name.strip()] = value
    return params


def _format_warning(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> str:
    """Warnings are messages to the user, not to a developer: no source line."""
    return f"paperkg: warning: {message}\n"


EXIT_HELP = """\b
Exit codes:
  0   success
  2   usage error: unknown command, option, query or parameter name, a missing
      or malformed --param
  65  bad input data (the good records are still added), a bad parameter value,
      or a refused Cypher query
  66  input file or store not found, or an entity name the graph does not hold
      (the closest names are printed)
  69  store unavailable (Neo4j unreachable, wrong credentials)
  70  internal error
  73  the store directory cannot be written
  74  disk full, or the store is damaged"""


class _Commands(click.Group):
    """The commands, with those defined in other modules (`LAZY`, which use this module's options)
    imported when they are asked for."""

    LAZY: ClassVar[dict[str, str]] = {"curate": "paperkg.api.curate_cli:curate",
                                      "review": "paperkg.api.curate_cli:review"}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.LAZY])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.LAZY:
            module, attr = self.LAZY[name].split(":")
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_HELP)
@click.version_option(package_name="paperkg")
def main() -> None:
    """paperkg: knowledge graphs of ML research from paper abstracts."""
    warnings.formatwarning = _format_warning
    install_log_redaction()


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@store_options
@click.option("--mode", type=click.Choice(["default", "rules"]), default="default", show_default=True,
              help="Extraction pipeline: learned + rules, or rules only (faster).")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Extraction processes.")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Extract on a Dask cluster: a scheduler address (tcp://HOST:8786), or `local` for "
                   "one worker process per core (needs `pip install paperkg[dask]`).")
@click.option("--replace-neo4j-graph", is_flag=True,
              help="With --neo4j: replace a graph another --store directory wrote there (refused "
                   "otherwise).")
@click.option("--serving-index", type=click.Choice(["auto", "wait", "background"]), default="auto",
              show_default=True,
              help="When to save the index `paperkg serve` loads: before returning, or in the background "
                   "once the store is committed (a server started meanwhile derives it); auto: in the "
                   "background from 20,000 papers.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("-q", "--quiet", is_flag=True,
              help="No progress on a terminal (the loading line and the bar); problems are still reported.")
@handle_errors
def build(inputs: tuple[str, ...], mode: str, jobs: int, dask_address: str | None, as_json: bool,
          quiet: bool, serving_index: str, **kwargs: Any) -> None:
    """Read INPUT files (collection .txt, .jsonl, .csv, .gz, directories, - for stdin), extract,
    resolve and add them to the store. With --neo4j, the build state (records, extractions, the
    derived graph) stays in the --store directory and Neo4j receives what changed."""
    from paperkg.api import build as pipeline

    store_dir, target = _build_target(kwargs)
    reporter = _Reporter()
    try:
        summary = pipeline.build(inputs, store_dir, reporter, target=target, mode=mode, n_process=jobs,
                                 dask=dask_address, on_wait=_waiting(store_dir),
                                 progress=progress_bar if _on_terminal(quiet) else None,
                                 on_stage=_say if _on_terminal(quiet) else None,
                                 serving_index=serving_index)
    finally:
        if target is not None:
            target.close()
        reporter.finish()
    if as_json:
        _print_json(summary.to_json())
    else:
        nodes = ", ".join(f"{k} {v}" for k, v in summary.stats["nodes"].items() if v)
        edges = ", ".join(f"{k} {v}" for k, v in summary.stats["edges"].items() if v)
        click.echo(f"read {summary.records} records: {summary.new_papers} new papers, "
                   f"{summary.extracted} extracted, {summary.papers} papers in the store"
                   f"{'' if summary.saved else ' (nothing changed)'}")
        if summary.reextracted:
            click.echo(f"re-extracted {summary.reextracted} papers: their stored extractions were made "
                       f"by another paperkg version or --mode")
        click.echo(f"nodes: {nodes or 'none'}")
        click.echo(f"edges: {edges or 'none'}")
    _say_not_applying(summary.not_applying)
    if summary.errors:
        click.echo(f"paperkg: {summary.errors} input problem(s) reported above; the good records "
                   "were added", err=True)
        sys.exit(65)


@main.command()
@click.argument("ids", nargs=-1, required=True)
@store_options
@click.option("--replace-neo4j-graph", is_flag=True,
              help="With --neo4j: replace a graph another --store directory wrote there (refused "
                   "otherwise).")
@click.option("--serving-index", type=click.Choice(["auto", "wait", "background"]), default="auto",
              show_default=True,
              help="When to save the index `paperkg serve` loads: before returning, or in the background "
                   "once the store is committed (a server started meanwhile derives it); auto: in the "
                   "background from 20,000 papers.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@handle_errors
def remove(ids: tuple[str, ...], as_json: bool, serving_index: str, **kwargs: Any) -> None:
    """Remove the papers with these ids, and every entity, mention, relation and alias only they
    supported: the graph becomes the one a build without them makes."""
    from paperkg.api import build as pipeline

    store_dir, target = _build_target(kwargs)
    try:
        summary = pipeline.remove(ids, store_dir, target=target, on_wait=_waiting(store_dir),
                                  serving_index=serving_index)
    finally:
        if target is not None:
            target.close()
    _say_not_applying(summary.not_applying)
    if as_json:
        _print_json(summary.to_json())
        return
    click.echo(f"removed {summary.removed} papers, {summary.papers} papers in the store")


def _say_not_applying(corrections: list[str]) -> None:
    for text in corrections:
        click.echo(printable(f"paperkg: warning: correction {text} (it is kept; `paperkg curate list`)"),
                   err=True)


@main.command()
@click.option("--store", "store", envvar="PAPERKG_STORE", default=DEFAULT_STORE, show_default=True,
              type=click.Path(file_okay=False), help="Embedded store directory [env PAPERKG_STORE].")
@handle_errors
def check(store: str) -> None:
    """Check the whole store: every page, and every JSON row (names the damaged ones; exit 74)."""
    from paperkg.api import build as pipeline

    papers = pipeline.check(store)
    click.echo(f"the store {store} is sound: {papers} papers, every page and row readable")


@main.command()
@click.option("--store", "store", envvar="PAPERKG_STORE", default=DEFAULT_STORE, show_default=True,
              type=click.Path(file_okay=False), help="Embedded store directory [env PAPERKG_STORE].")
@click.option("--serving-index", type=click.Choice(["auto", "wait", "background"]), default="auto",
              show_default=True,
              help="When to save the index `paperkg serve` loads: before returning, or in the background "
                   "once the store is committed (a server started meanwhile derives it); auto: in the "
                   "background from 20,000 papers.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@handle_errors
def repair(store: str, as_json: bool, serving_index: str) -> None:
    """Derive the graph again from the stored records and extractions (no extraction): mends
    damaged derived rows (`paperkg check` names them)."""
    from paperkg.api import build as pipeline

    summary = pipeline.repair(store, on_wait=_waiting(store), serving_index=serving_index)
    if as_json:
        _print_json(summary.to_json())
        return
    click.echo(f"derived the graph of {summary.papers} papers again from their stored extractions")


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write JSON lines here instead of stdout.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False, writable=True), default=None,
              metavar="OUT", help="Write one HTML page showing every abstract with its entities marked "
                                  "(displaCy's span view) to OUT; JSON lines then only with -o.")
@click.option("--mode", type=click.Choice(["default", "rules"]), default="default", show_default=True)
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True)
@handle_errors
def extract(inputs: tuple[str, ...], output: str | None, html_out: str | None, mode: str, jobs: int) -> None:
    """Extract entities, acronyms and relations, one JSON line per abstract (no store)."""
    from paperkg.api import build as pipeline

    errors = 0
    reporter = _Reporter()

    def report(problem: object) -> None:
        nonlocal errors
        errors += getattr(problem, "severity", "") == "error"
        reporter(problem)

    extractions = pipeline.extract(inputs, mode=mode, n_process=jobs, on_problem=report)
    shown: list[Any] = []
    out = open(output, "w", encoding="utf-8") if output else None if html_out else sys.stdout  # noqa: SIM115
    try:
        for extraction in extractions:
            if out is not None:
                out.write(json.dumps(extraction.to_json(), ensure_ascii=False) + "\n")
            if html_out:
                shown.append(extraction)
    finally:
        if output and out is not None:
            out.close()
        reporter.finish()
    if html_out:
        with open(html_out, "w", encoding="utf-8") as page:
            page.write(pipeline.extract_page(shown))
        click.echo(f"wrote {len(shown)} abstracts with their entities to {html_out}", err=True)
    if errors:
        sys.exit(65)


@main.command()
@store_options
@click.option("--json", "as_json", is_flag=True, help='{"nodes": {label: n}, "edges": {type: n}}')
@handle_errors
def stats(as_json: bool, **kwargs: Any) -> None:
    """Count nodes by label and edges by type."""
    store = _open(kwargs)
    try:
        counts = store.stats()
    finally:
        store.close()
    if as_json:
        _print_json(counts)
        return
    for section in ("nodes", "edges"):
        click.echo(f"{section}:")
        for name, count in counts[section].items():
            click.echo(f"  {name:<14} {count}")


@main.group()
def export() -> None:
    """Export the graph."""


def _export(out: str, writer: Callable[..., tuple[int, int]], kwargs: dict[str, Any]) -> None:
    store = _open(kwargs)
    try:
        graph = store.export()
    finally:
        store.close()
    nodes, edges = writer(graph, sys.stdout.buffer if out == "-" else out)
    click.echo(f"wrote {nodes} nodes and {edges} edges to {out}", err=True)


@export.command("graphml")
@click.argument("out", type=click.Path(dir_okay=False))
@store_options
@handle_errors
def export_graphml(out: str, **kwargs: Any) -> None:
    """Write GraphML that Gephi opens (OUT, or - for stdout)."""
    from paperkg.graph.graphml import write_graphml

    _export(out, write_graphml, kwargs)


@export.command("gexf")
@click.argument("out", type=click.Path(dir_okay=False))
@store_options
@handle_errors
def export_gexf(out: str, **kwargs: Any) -> None:
    """Write dynamic GEXF 1.3 (OUT, or - for stdout): every node and edge starts in the year it first
    appears, so Gephi's timeline replays the field's growth."""
    from paperkg.graph.gexf import write_gexf

    _export(out, write_gexf, kwargs)


@export.command("neo4j-import")
@click.argument("out", type=click.Path(file_okay=False))
@store_options
@handle_errors
def export_neo4j_import(out: str, **kwargs: Any) -> None:
    """Write CSV files for Neo4j's bulk importer (neo4j-admin database import) into the new
    directory OUT, with the command (OUT/import.sh) and the schema to run after it (OUT/schema.cypher)."""
    from paperkg.graph.neo4j_import import write_import_dir

    store = _open(kwargs)
    try:
        graph = store.export()
        synced = getattr(store, "synced_generation", None)
        generation = synced() if callable(synced) else store.version()
    finally:
        store.close()
    summary = write_import_dir(graph, out, generation=generation if isinstance(generation, str) else None)
    click.echo(f"wrote {summary.nodes} nodes and {summary.relationships} relationships to {out}; "
               f"load them with: sh {out}/import.sh [DATABASE] (Neo4j stopped), then run "
               f"{out}/schema.cypher", err=True)


def _output_options(func: Callable) -> Callable:
    """One of --table, --tsv, --csv, --json, --nl (default: a table on a terminal, TSV otherwise)."""
    choices = [
        ("--table", "table", "An aligned table (the default on a terminal)."),
        ("--tsv", "tsv", "Tab-separated, header first (the default when stdout is not a terminal)."),
        ("--csv", "csv", "Comma-separated, header first (RFC 4180 quoting)."),
        ("--json", "json", "One JSON array of row objects."),
        ("--nl", "nl", "JSON lines: one row object a line."),
    ]
    for flag, value, text in reversed(choices):
        func = click.option(flag, "fmt", flag_value=value, help=text)(func)
    return func


@main.command()
@click.argument("name", required=False)
@click.option("--cypher", default=None, help="Run read-only Cypher text instead of a catalog query.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="A query parameter.")
@click.option("--list", "list_queries", is_flag=True,
              help="List the catalog (with --json: parameters with types, defaults and ranges).")
@_output_options
@store_options
@handle_errors
def query(name: str | None, cypher: str | None, params: tuple[str, ...], list_queries: bool,
          fmt: str | None, **kwargs: Any) -> None:
    """Run a named catalog query (see --list) or read-only --cypher on either store."""
    from paperkg.api.output import write_rows
    from paperkg.queries.catalog import catalog_json
    from paperkg.queries.runner import run_cypher_bounded, run_named

    if list_queries:
        catalog = catalog_json()
        if fmt == "json":
            _print_json(catalog)
        elif fmt == "nl":
            for entry in catalog:
                _print_json(entry)
        else:
            for q in catalog:
                args = ", ".join(_param_text(p) for p in q["params"])
                click.echo(f"{q['name']}({args})  {q['description']}")
        return
    if bool(name) == bool(cypher):
        raise click.UsageError("give a query NAME or --cypher TEXT (see --list)")
    raw = _parse_params(params)
    store = _open(kwargs)
    try:
        if cypher:
            from paperkg.api.routers.cypher import bounds_of
            from paperkg.api.settings import Settings

            # the same bounds as POST /cypher (PAPERKG_CYPHER_TIMEOUT, PAPERKG_MAX_ANSWER_ROWS, ...)
            answer = run_cypher_bounded(store, cypher, {k: _json_or_text(v) for k, v in raw.items()},
                                        bounds_of(Settings()))
            rows = answer.rows
            if answer.truncated:
                click.echo(f"paperkg: warning: the answer was cut to {len(rows)} rows (the answer limit); "
                           "add a LIMIT or page with SKIP", err=True)
        else:
            rows = run_named(store, name, raw)  # type: ignore[arg-type]
    finally:
        store.close()
    if not rows and fmt not in ("json", "nl"):
        click.echo("(no rows)", err=True)
        if fmt not in ("csv", "tsv"):
            return
    write_rows(rows, fmt or ("table" if sys.stdout.isatty() else "tsv"), sys.stdout)


def _param_text(p: dict[str, Any]) -> str:
    """`limit?=20 (1..1000)`, `direction? (higher|lower)`: name, ? when optional, default, range or
    the words a choice takes."""
    text = p["name"] + ("" if p["required"] else "?")
    if p.get("default") is not None:
        text += f"={json.dumps(p['default'], ensure_ascii=False)}"
    if p.get("schema", {}).get("enum") and p["type"] == "choice":
        text += f" ({'|'.join(p['schema']['enum'])})"
    if p.get("min") is not None or p.get("max") is not None:
        lo = "" if p.get("min") is None else p["min"]
        hi = "" if p.get("max") is None else p["max"]
        text += f" ({lo}..{hi})"
    return text


def _json_or_text(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


@main.command()
@store_options
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes; each opens the store (read-only) and holds its own copy of the "
                   "served graph in memory.")
@click.option("--access-log/--no-access-log", default=False, show_default=True,
              help="Log one line per request (off by default: it was a tenth of a request's time).")
@handle_errors
def serve(host: str, port: int, workers: int, access_log: bool, **kwargs: Any) -> None:
    """Serve the HTTP API (OpenAPI docs at /docs)."""
    import uvicorn

    from paperkg.api.app import create_app
    from paperkg.api.security import is_loopback
    from paperkg.api.settings import Settings

    settings = Settings(
        store=kwargs["store"], neo4j_uri=kwargs["neo4j_uri"], neo4j_user=kwargs["neo4j_user"],
        neo4j_password=neo4j_password(kwargs), neo4j_database=kwargs["neo4j_database"],
    )
    if not is_loopback(host):
        if settings.token() is None:
            click.echo(f"paperkg: warning: serving on {host}, beyond loopback, without PAPERKG_API_TOKEN: "
                       "anyone who reaches the port can query and download the graph", err=True)
        if not settings.allowed_hosts:
            click.echo("paperkg: warning: PAPERKG_ALLOWED_HOSTS is not set, so any Host header is "
                       "accepted; list the names clients use to reach this server", err=True)
    if workers == 1:
        uvicorn.run(create_app(settings), host=host, port=port, log_level="info", access_log=access_log)
        return
    # Uvicorn starts each worker from an import string, so the settings travel as the PAPERKG_*
    # variables `Settings()` reads (the environment, never the process list: it holds the password).
    for name, value in (("STORE", settings.store), ("NEO4J_URI", settings.neo4j_uri),
                        ("NEO4J_USER", settings.neo4j_user), ("NEO4J_PASSWORD", settings.password()),
                        ("NEO4J_DATABASE", settings.neo4j_database)):
        if value is None:
            os.environ.pop(f"PAPERKG_{name}", None)
        else:
            os.environ[f"PAPERKG_{name}"] = value
    uvicorn.run("paperkg.api.app:create_app", factory=True, host=host, port=port, workers=workers,
                log_level="info", access_log=access_log)

if __name__ == "__main__":
    main()
