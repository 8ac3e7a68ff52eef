"""What every HTTP model client shares, whatever wire it speaks: the error a call that failed for
good raises, how base URLs appear in logs and errors, which servers count as local, how a 200
answer that does not parse is described, and the client skeleton (`WireClient`)."""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from urllib.parse import urlparse

from pydantic import ValidationError
from tenacity import RetryCallState

from judge_runner import cancel
from judge_runner.log import get_logger
from judge_runner.models.base import ModelError, ModelRequest, ModelResponse
from judge_runner.models.pricing import PriceTable, price_table
from judge_runner.models.retry import Attempts, RetryPolicy
from judge_runner.validation import problems

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
    return ModelCallError(f"server answered 200 but not with {expected} "
                          f"({problems(err, 'answer', most=5)})",
                          attempts=attempts, status=200)


class WireClient(ABC):
    """The skeleton of an HTTP ModelClient; subclasses add only what their wire decides.

    Shared: the temperature fallback, the retry loop (`Attempts`: every retry ours, counted, each
    attempt's timeout cut to the case's deadline), the 200 body parsed as JSON, waits that honour
    `retry-after`, retry logs, the failure raised when a call fails for good, and key scrubbing.
    Per wire: `_send` (one attempt, returns the 200 body), `_to_response` (body → ModelResponse),
    `_describe` (an SDK error in words), and which SDK errors there are (`_api_error`,
    `_is_retryable`, `_retry_after`, `_status`). Thread-safe: one instance serves many cases.
    """

    _api_error: type[Exception]  # every error the SDK raises for a call
    _timeout_error: type[Exception]  # ... when an attempt timed out
    _connection_error: type[Exception]  # ... when the server could not be reached

    def __init__(self, *, base_url: str, api_key: str, timeout_s: float,
                 retry: RetryPolicy | None, prices: PriceTable | None) -> None:
        self.base_url = base_url
        self._api_key = api_key
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.prices = prices if prices is not None else price_table()
        self._lock = threading.Lock()
        self._no_temperature: set[str] = set()  # models that answered 400 to a temperature

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(base_url={safe_url(self.base_url)!r}, " \
               f"timeout_s={self.timeout_s})"

    def complete(self, request: ModelRequest) -> ModelResponse:
        """One call with retries.

        Temperature (0 by default) is sent unless the model has rejected it: newer models accept
        no sampling parameters, and a 400 that names `temperature` makes this client warn once
        and resend without one, for this and every later call to that model. Every response
        sent without a temperature says so (`temperature_dropped`), and so does its recording.

        Raises ModelCallError when a non-retryable error occurs, when retries are exhausted, or
        when the server's 200 answer is not one of the wire's responses (not retried: a server
        that answers garbage once is assumed to keep doing so). Raises `cancel.Cancelled` when
        the run is cancelled before an attempt or during a wait between attempts.
        """
        with self._lock:
            send_temperature = request.model not in self._no_temperature
        try:
            response = self._complete(request, send_temperature)
        except ModelCallError as err:
            if not (send_temperature and err.status == 400 and "temperature" in str(err)):
                raise
            with self._lock:
                self._no_temperature.add(request.model)
            log.warning("model rejects a temperature; its requests go without one from now on "
                        "(not deterministic; responses are marked temperature_dropped)",
                        model=request.model, asked_temperature=request.temperature)
            response = self._complete(request, send_temperature=False)
            usage = response.usage.model_copy(update={"retries": response.usage.retries
                                                      + err.attempts})
            return response.model_copy(update={"usage": usage, "temperature_dropped": True})
        if not send_temperature:
            return response.model_copy(update={"temperature_dropped": True})
        return response

    def _complete(self, request: ModelRequest, send_temperature: bool) -> ModelResponse:
        attempts = Attempts(self.retry, self.timeout_s, self._is_retryable, self._wait_for,
                            self._log_retry)
        try:
            body = attempts.run(lambda timeout: self._attempt(request, send_temperature, timeout))
        except self._api_error as err:
            raise self._failure(err, attempts.made) from None
        try:
            data = json.loads(body)
        except ValueError:
            raise ModelCallError(f"server answered 200 with a body that is not JSON: "
                                 f"{self._redact(body[:200])!r}", attempts=attempts.made,
                                 status=200) from None
        response = self._to_response(request, data, attempts.made)
        log.debug("model call", model=request.model, attempts=attempts.made,
                  input_tokens=response.usage.input_tokens,
                  cache_read_input_tokens=response.usage.cache_read_input_tokens,
                  cache_creation_input_tokens=response.usage.cache_creation_input_tokens,
                  output_tokens=response.usage.output_tokens, stop_reason=response.stop_reason)
        return response

    # --- per wire --------------------------------------------------------------------------
    @abstractmethod
    def _send(self, request: ModelRequest, send_temperature: bool, timeout_s: float) -> str:
        """One attempt with `timeout_s`; returns the 200 body. SDK errors propagate to the
        retry loop."""

    @abstractmethod
    def _to_response(self, request: ModelRequest, data: object, attempts: int) -> ModelResponse:
        """The parsed 200 body as a ModelResponse, or ModelCallError when it is not one."""

    @abstractmethod
    def _status_detail(self, err: BaseException) -> str:
        """What a server's error answer says (its error kind and message), before redaction."""

    @abstractmethod
    def _is_retryable(self, err: BaseException) -> bool: ...

    @abstractmethod
    def _retry_after(self, err: BaseException) -> float | None:
        """The wait the server asked for (`retry-after`), if any."""

    # --- shared ----------------------------------------------------------------------------
    def _attempt(self, request: ModelRequest, send_temperature: bool, timeout_s: float) -> str:
        cancel.check()  # a cancelled run sends nothing more
        return self._send(request, send_temperature, timeout_s)

    @staticmethod
    def _status(err: BaseException) -> int | None:
        """The HTTP status of a server's error answer (None for network errors)."""
        status = getattr(err, "status_code", None)
        return status if isinstance(status, int) else None

    def _describe(self, err: BaseException) -> str:
        """An SDK error in words, redacted."""
        if isinstance(err, self._timeout_error):
            return "timed out (client timeout or the case's wall budget)"
        if isinstance(err, self._connection_error):
            return f"connection error: {err.__cause__ or getattr(err, 'message', err)}"
        status = self._status(err)
        if status is not None:
            return self._redact(f"HTTP {status} {self._status_detail(err)}")
        return self._redact(f"{type(err).__name__}: {err}")

    def _wait_for(self, err: BaseException, attempt_number: int) -> float:
        asked = self._retry_after(err)
        if asked is not None:
            return min(asked, self.retry.max_retry_after_s)
        return self.retry.backoff(attempt_number)

    def _log_retry(self, state: RetryCallState) -> None:
        err = state.outcome.exception() if state.outcome is not None else None
        log.warning("model call failed; retrying", attempt=state.attempt_number,
                    max_attempts=self.retry.max_attempts, wait_s=round(state.upcoming_sleep, 3),
                    reason=self._describe(err) if err is not None else "unknown")

    def _failure(self, err: BaseException, attempts: int) -> ModelCallError:
        return call_failure(self.base_url, attempts=attempts, status=self._status(err),
                            retryable=self._is_retryable(err), description=self._describe(err))

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "[redacted]") if self._api_key else text
