"""Keeping credentials out of every message, log line and problem document.

Two layers, because a secret can reach a message by many paths (our own f-strings, a driver error
that quotes the URI, a traceback):
- URIs are shown without their userinfo (`redact_uri`), and credentials written into a Neo4j URI
  (`bolt://neo4j:pw@host`) are taken out of it before the driver sees it (`split_credentials`), so
  the URI the rest of the code holds has none;
- every text that leaves the process — the CLI's error lines, the API's problem details, log records
  (a `logging` record factory, so every logger and handler is covered, uvicorn's included) — goes
  through `redact`, which blanks `scheme://user:password@` userinfo and every secret value
  registered with `register_secret` (the Neo4j password, the API token).
"""

from __future__ import annotations

import logging
import re
import threading
from urllib.parse import unquote, urlsplit, urlunsplit

MASK = "***"
# `scheme://userinfo@` anywhere in a text: the userinfo is everything up to the last `@` before the
# host (a password may itself contain `@`), never crossing a space, a slash or a quote.
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^\s/?#'\"]*)@")
_MIN_SECRET = 3          # shorter values would blank ordinary words

_secrets: set[str] = set()
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Blank `value` (and its URL-quoted form) in every text `redact` sees from now on."""
    if value and len(value) >= _MIN_SECRET:
        with _lock:
            _secrets.add(value)


def redact(text: str) -> str:
    """`text` without URI userinfo and without any registered secret."""
    if not text:
        return text
    out = _USERINFO.sub(lambda m: m["scheme"] + MASK + "@", text)
    if _secrets:
        for secret in sorted(_secrets, key=len, reverse=True):
            if secret in out:
                out = out.replace(secret, MASK)
    return out


def redact_uri(uri: str) -> str:
    """The URI as shown to people: `bolt://***@host:7687` when it carries credentials."""
    return redact(uri)


def split_credentials(uri: str) -> tuple[str, str | None, str | None]:
    """`uri` without userinfo, and the user and password it carried (URL-decoded), each None when
    absent. Registers the password as a secret."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return uri, None, None
    if "@" not in parts.netloc:
        return uri, None, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, sep, password = userinfo.partition(":")
    user_s, password_s = unquote(user) or None, (unquote(password) if sep else None)
    register_secret(password_s)
    register_secret(password)
    return urlunsplit(parts._replace(netloc=hostport)), user_s, password_s


_installed = False


def install_log_redaction() -> None:
    """Redact every log record when it is made (message, arguments and traceback text), whatever
    logger or handler it goes to. Idempotent."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    previous = logging.getLogRecordFactory()
    formatter = logging.Formatter()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a bad format string is the logging module's to report
            return record
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(formatter.formatException(record.exc_info))
        return record

    logging.setLogRecordFactory(factory)
