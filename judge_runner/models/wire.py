"""What every HTTP model client shares, whatever wire it speaks: the error a call that failed for
good raises, how base URLs appear in logs and errors, which servers count as local, and how a
200 answer that does not parse is described."""

from __future__ import annotations

from urllib.parse import urlparse

from pydantic import ValidationError

from judge_runner.log import get_logger
from judge_runner.models.base import ModelError

# Sent to local servers when no key is set: they need some key header, not a real key.
LOCAL_DUMMY_KEY = "local-server-no-key"
_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})

log = get_logger(__name__)


class ModelCallError(ModelError):
    """A call that failed for good; `status` is the last HTTP status (None for network errors)."""

    def __init__(self, message: str, *, attempts: int, status: int | None) -> None:
        super().__init__(message, attempts=attempts)
        self.status = status


def safe_url(url: str) -> str:
    """`url` without user info, query or fragment: what may appear in logs and errors."""
    parts = urlparse(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return parts._replace(netloc=netloc, query="", fragment="").geturl()


def is_local(base_url: str) -> bool:
    return (urlparse(base_url).hostname or "") in _LOCAL_HOSTS


def call_failure(base_url: str, *, attempts: int, status: int | None, retryable: bool,
                 description: str) -> ModelCallError:
    """The error for a call that failed for good, logged once; `description` is already
    redacted."""
    gave_up = " (retries exhausted)" if retryable else ""
    message = (f"model call to {safe_url(base_url)} failed after {attempts} attempt(s)"
               f"{gave_up}: {description}")
    log.error("model call failed", attempts=attempts, status=status, reason=message)
    return ModelCallError(message, attempts=attempts, status=status)


def malformed_answer(err: ValidationError, *, expected: str, attempts: int) -> ModelCallError:
    """A 200 answer that is not `expected` (the first five problems, by field)."""
    problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors()[:5])
    return ModelCallError(f"server answered 200 but not with {expected} ({problems})",
                          attempts=attempts, status=200)
