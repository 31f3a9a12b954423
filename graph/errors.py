"""The project's error classes. Each says what went wrong and what to do; the CLI maps them to exit
codes (sysexits) and the HTTP API to problem responses, so no user sees a traceback."""

from __future__ import annotations


class PaperkgError(Exception):
    """Base class: `str(err)` is the one line shown to the user, `hint` what to do about it."""

    exit_code = 1
    http_status = 500
    title = "paperkg error"

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class UsageError(PaperkgError):
    exit_code = 2
    http_status = 400
    title = "Bad request"


class BadInputError(PaperkgError):
    """Input data (abstract files, query parameters, Cypher text) that cannot be used."""

    exit_code = 65
    http_status = 422
    title = "Unprocessable input"


class QueryRefusedError(BadInputError):
    """User Cypher that would write, read files or call procedures."""

    http_status = 403
    title = "Query refused"


class UnsupportedQueryError(BadInputError):
    """Cypher the embedded engine cannot answer correctly (better an error than a wrong answer)."""

    http_status = 422
    title = "Query not supported by the embedded store"


class InputNotFoundError(PaperkgError):
    exit_code = 66
    http_status = 404
    title = "Not found"


class NotFoundError(InputNotFoundError):
    """A named thing (entity, paper, catalog query) that the graph does not hold."""


class StoreUnavailableError(PaperkgError):
    """The store cannot be reached or opened (Neo4j down, wrong credentials, locked store)."""

    exit_code = 69
    http_status = 503
    title = "Store unavailable"


class ClusterUnavailableError(PaperkgError):
    """The Dask cluster a build was told to use cannot be reached, has no workers, or runs another
    extractor than this process."""

    exit_code = 69
    http_status = 503
    title = "Cluster unavailable"


class QueryTimeoutError(StoreUnavailableError):
    """A catalog query stopped by the server's transaction timeout: the parameters were valid, the
    server could not answer in time (busy, or a question too broad). HTTP 503, exit 69: not the
    user's input (a 422 would say "fix your request"), so retry or narrow the question."""

    title = "Query timed out"
    retry_after = 1        # seconds, for the HTTP Retry-After header
