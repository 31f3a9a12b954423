"""The error classes carry no codes: the CLI and the HTTP API map them (sysexits, problem+json)."""

from __future__ import annotations

import inspect

import pytest
from click.testing import CliRunner

from paperkg.api.cli import EXIT_CODES, exit_code, handle_errors
from paperkg.api.problems import PROBLEMS, problem_kind
from paperkg.graph import errors
from paperkg.graph.errors import (
    BadInputError,
    ClusterUnavailableError,
    InputNotFoundError,
    NotFoundError,
    PaperkgError,
    QueryRefusedError,
    QueryTimeoutError,
    StoreUnavailableError,
    UnsupportedQueryError,
    UsageError,
)

ERROR_CLASSES = [cls for _, cls in inspect.getmembers(errors, inspect.isclass)
                 if issubclass(cls, PaperkgError)]


@pytest.mark.parametrize(("cls", "code", "status", "type_"), [
    (PaperkgError, 1, 500, "error"),
    (UsageError, 2, 400, "bad-request"),
    (BadInputError, 65, 422, "bad-input"),
    (QueryRefusedError, 65, 403, "query-refused"),
    (UnsupportedQueryError, 65, 422, "unsupported-query"),
    (InputNotFoundError, 66, 404, "not-found"),
    (NotFoundError, 66, 404, "not-found"),
    (StoreUnavailableError, 69, 503, "store-unavailable"),
    (QueryTimeoutError, 69, 503, "query-timeout"),
    (ClusterUnavailableError, 69, 503, "cluster-unavailable"),
])
def test_each_class_maps_to_its_exit_code_and_status(cls: type[PaperkgError], code: int, status: int,
                                                    type_: str) -> None:
    err = cls("something went wrong", "do this")
    assert exit_code(err) == code
    assert (problem_kind(err).status, problem_kind(err).type) == (status, type_)


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda c: c.__name__)
def test_classes_know_nothing_of_exit_codes_or_http(cls: type[PaperkgError]) -> None:
    assert not {"exit_code", "http_status", "status", "title"} & set(vars(cls))


def test_a_new_subclass_answers_like_its_parent() -> None:
    class DiskFull(StoreUnavailableError):
        pass

    err = DiskFull("the disk is full")
    assert DiskFull not in EXIT_CODES and DiskFull not in PROBLEMS
    assert exit_code(err) == 69
    assert problem_kind(err).status == 503


def test_cli_exits_with_the_mapped_code_and_one_line() -> None:
    import click

    @click.command()
    @handle_errors
    def fails() -> None:
        raise NotFoundError("no entity named 'X'", "try entity_search")

    result = CliRunner().invoke(fails, [])
    assert result.exit_code == 66
    assert result.output.strip() == "paperkg: error: no entity named 'X' (try entity_search)"
