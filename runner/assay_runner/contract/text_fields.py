"""Text fields that become something else: a path, a URL, a name in MLflow or in a result.

Each is refused when the input is read, with the field's name, rather than when it is used: a NUL in
`output.dir` passed validation and crashed the run after judging (`open` raises on it), a lone surrogate
cannot be encoded for the file system or JSON, `gateway: file:///etc/passwd` was accepted as a URL.
"""

from __future__ import annotations

import os
import unicodedata
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field

MAX_PATH_BYTES = 4095
"""Linux's PATH_MAX less its NUL: a longer path cannot be opened."""
MAX_LABEL = 256
"""A run's, an experiment's or a model's name: as long as the Evaluation lets an experiment's be."""
MAX_URL = 2048
"""As the Evaluation's `gateway` field."""
URL_SCHEMES = ("http", "https")
LABEL_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
"""What `Label` and `PlainText` accept, as one regular expression (RE2, Python and Rust alike) for a schema
that cannot run a validator: the Evaluation's CRD, so the apiserver refuses a name the runner would (a
lone surrogate aside, which JSON cannot carry to it)."""


def not_utf8(name: str) -> str | None:
    """A file name read from disk that is not UTF-8, shown with its bytes escaped ("bad\\xff.md"); None for
    a good one. Python hands such a name over with surrogates, which no digest, ConfigMap or result holds."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    return None


def _plain(text: str) -> str:
    """No control character (NUL, newline, escape...) and no lone surrogate (not encodable as UTF-8)."""
    if not text.strip():
        raise ValueError("must not be empty or only whitespace")
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cc":
            raise ValueError(f"must not contain a control character ({char!r} at {index})")
        if 0xD800 <= ord(char) <= 0xDFFF:
            raise ValueError(
                f"must be UTF-8 text (a lone surrogate {char!r} at {index}: a name's byte that is not UTF-8)"
            )
    return text


def _path(text: str) -> str:
    if len(text.encode("utf-8")) > MAX_PATH_BYTES:
        raise ValueError(f"a path must be at most {MAX_PATH_BYTES} bytes long")
    return text


def checked_gateway_url(url: str, source: str) -> str:
    """`url` checked as a RunConfig's `gateway` is (`HttpUrl`), for one that comes from a flag or the
    environment instead; bad input (exit 2) naming `source` when it cannot be the gateway's URL."""
    from assay_runner.errors import InputError, Problem

    try:
        if len(url) > MAX_URL:
            raise ValueError(f"a URL of at most {MAX_URL} characters")
        return _http_url(_plain(url))
    except ValueError as exc:
        raise InputError([Problem(source, "", f"{exc} (got {url!r})")]) from None


def _http_url(text: str) -> str:
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - parsed here: a port that is not a number raises ValueError
    except ValueError as exc:
        raise ValueError(f"not a URL ({exc})") from None
    if parts.scheme.lower() not in URL_SCHEMES or not parts.hostname or any(c.isspace() for c in text):
        raise ValueError("must be an http:// or https:// URL with a host, like http://gateway:8080/v1")
    return text


PlainText = Annotated[str, AfterValidator(_plain)]
"""Text with something in it, no control character and no lone surrogate."""
PathText = Annotated[str, AfterValidator(_plain), AfterValidator(_path)]
"""A file or folder (`output.dir`, `suite`...)."""
Label = Annotated[str, Field(max_length=MAX_LABEL), AfterValidator(_plain)]
"""A name that reaches MLflow, a result or a model request (`runName`, a model, an experiment)."""
HttpUrl = Annotated[str, Field(max_length=MAX_URL), AfterValidator(_plain), AfterValidator(_http_url)]
"""An http(s) URL with a host (the model gateway): `checked_gateway_url` checks one given elsewhere."""
