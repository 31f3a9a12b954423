"""The project's error classes. Each says what went wrong (`message`) and what to do (`hint`).

They name kinds of failure, not how a front end reports them: the CLI maps each class to a sysexits
exit code (`paperkg.api.cli.EXIT_CODES`), the HTTP API to a status and a problem type
(`paperkg.api.problems.PROBLEMS`), so the layers below the API stay free of HTTP and of process exit
conventions. A new class inherits its parent's code and status until the maps name it.
"""

from __future__ import annotations


class PaperkgError(Exception):
    """Base class: `str(err)` is the one line shown to the user, `hint` what to do about it."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class UsageError(PaperkgError):
    """A command or request that is malformed as a whole (conflicting options, a missing argument)."""


class BadInputError(PaperkgError):
    """Input data (abstract files, query parameters, Cypher text) that cannot be used."""


class QueryRefusedError(BadInputError):
    """User Cypher that would write, read files or call procedures."""


class UnsupportedQueryError(BadInputError):
    """Cypher the embedded engine cannot answer correctly (better an error than a wrong answer)."""


class QueryLimitError(BadInputError):
    """A query or its answer beyond one of the server's fixed bounds (text size, nesting, answer
    rows or bytes): the message names the limit and its value, so the user knows what to change."""


class InputNotFoundError(PaperkgError):
    """An input the user named (a file, a store directory) that does not exist."""


class NotFoundError(InputNotFoundError):
    """A named thing (entity, paper, catalog query) that the graph does not hold."""


class UnknownQueryError(NotFoundError):
    """A catalog query name the catalog does not have. A typo in the command, like an unknown
    option: the CLI exits with its usage code, as for every other mistyped name."""


class ParameterUsageError(BadInputError):
    """A parameter the query does not declare, or a required one left out: a usage error, not bad
    data (a value of the wrong type stays a BadInputError)."""


class UnknownEntityError(NotFoundError):
    """An entity name a query was given that no entity of the graph has (as name or alias):
    `suggestions` holds the display names of the closest ones (`queries.suggest`), best first."""

    def __init__(self, message: str, hint: str | None = None, suggestions: list[str] | None = None) -> None:
        super().__init__(message, hint)
        self.suggestions = list(suggestions or [])


class StoreUnavailableError(PaperkgError):
    """The store cannot be reached or opened (Neo4j down, wrong credentials, locked store)."""


class GraphIncompleteError(StoreUnavailableError):
    """The stored graph is not one a build made: a save into Neo4j is under way or was interrupted
    half-way. Reads are refused (503 with `retry_after`, exit 69) rather than answered from it."""

    def __init__(self, message: str, hint: str | None = None, retry_after: int = 60) -> None:
        super().__init__(message, hint)
        self.retry_after = retry_after


class StoreNotWritableError(StoreUnavailableError):
    """The store directory or its database cannot be written (permissions, a read-only file system)."""


class StoreIOError(StoreUnavailableError):
    """Reading or writing the store's files failed (the disk, not the permissions)."""


class StoreFullError(StoreIOError):
    """The disk holding the store is full, or would be before the build could finish."""


class StoreCorruptError(StoreIOError):
    """The store's database is damaged: its integrity check fails, or pages or rows cannot be read."""


class ClusterUnavailableError(PaperkgError):
    """The Dask cluster a build was told to use cannot be reached, has no workers, or runs another
    extractor than this process."""


class WorkersLostError(ClusterUnavailableError):
    """The local extraction worker processes of a `--jobs` build kept dying (killed, out of memory)
    on the same batch, so the build stopped instead of retrying for ever."""


class QueryTimeoutError(StoreUnavailableError):
    """A catalog query stopped by the server's transaction timeout: the parameters were valid, the
    server could not answer in time (busy, or a question too broad). Not the user's input, so the
    front ends report it as the store's failure (retry, or narrow the question), not as bad input."""

    retry_after = 1        # seconds a client should wait before asking again
