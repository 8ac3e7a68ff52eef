"""Recording and replay of model calls.

`RecordingClient` wraps any ModelClient and appends one `TranscriptEntry` per call (request,
response or error) to a case's `transcript.jsonl`. `ReplayClient` answers from the transcripts
of a recorded run directory with no server at all: each request is looked up by `request_key`,
a hash of its full content, so the same prompt gets the same recorded answer (and a recorded
failure is raised again). A request that was never recorded raises ReplayMissError — never a
made-up answer.

Keys never reach a transcript: requests and responses carry none, and as a second line of
defence the value of $ANTHROPIC_API_KEY is scrubbed from every line before it is written.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from judge_runner.jsonl import numbered_lines
from judge_runner.log import get_logger
from judge_runner.models.base import ModelClient, ModelError, ModelRequest, ModelResponse, Usage
from judge_runner.text import sha256_text
from judge_runner.validation import in_one_line

TRANSCRIPT = "transcript.jsonl"
_KEY_ENV = "ANTHROPIC_API_KEY"

log = get_logger(__name__)


class TranscriptEntry(BaseModel):
    """One model call as recorded; exactly one of response / error is set."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["model_call"] = "model_call"
    seq: int  # 0-based call number within this transcript
    key: str  # request_key(request)
    request: ModelRequest
    response: ModelResponse | None = None
    error: str | None = None
    attempts: int | None = None  # of a failed call: how many times it was sent
    duration_s: float = 0.0

    @property
    def usage(self) -> Usage:
        """What this call counts: the response's usage, or one failed call and its retries."""
        if self.response is not None:
            return self.response.usage
        return ModelError("", attempts=1 if self.attempts is None else self.attempts).usage


class ReplayError(ModelError):
    """A recorded run cannot be replayed (no transcripts found)."""


class ReplayMissError(ModelError):
    """A request has no recorded answer in the replayed run."""


def request_key(request: ModelRequest) -> str:
    """sha256 of the request's canonical JSON: equal requests, equal keys, on any machine."""
    canonical = json.dumps(request.model_dump(mode="json"), sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False)
    return sha256_text(canonical)


def _scrub(line: str) -> str:
    key = os.environ.get(_KEY_ENV, "").strip()
    return line.replace(key, "[redacted]") if len(key) >= 8 else line


class RecordingClient:
    """Records every call of `inner` to `path`; thread-safe.

    A transcript holds one judging session: an existing file at `path` is replaced (a re-judged
    case must not replay answers from its previous attempt) unless `append` is set, for several
    clients sharing one file. `usage` is the sum over the calls made through this wrapper, i.e.
    per case when each case gets its own RecordingClient. Errors are recorded and re-raised.
    """

    def __init__(self, inner: ModelClient, path: Path, *, append: bool = False) -> None:
        self.inner = inner
        self.path = path
        if not append:
            path.unlink(missing_ok=True)
        self._lock = threading.Lock()
        self._seq = 0
        self._usage = Usage()

    @property
    def usage(self) -> Usage:
        with self._lock:
            return self._usage

    def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.monotonic()
        key = request_key(request)
        try:
            response = self.inner.complete(request)
        except ModelError as err:
            self._append(key, request, None, err, time.monotonic() - started)
            raise
        self._append(key, request, response, None, time.monotonic() - started)
        return response

    def _append(self, key: str, request: ModelRequest, response: ModelResponse | None,
                error: ModelError | None, duration_s: float) -> None:
        with self._lock:
            entry = TranscriptEntry(seq=self._seq, key=key, request=request, response=response,
                                    error=None if error is None else str(error),
                                    attempts=None if error is None else error.attempts,
                                    duration_s=round(duration_s, 3))
            self._seq += 1
            self._usage = self._usage + entry.usage
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as out:
                out.write(_scrub(entry.model_dump_json()) + "\n")


def read_transcript(path: Path) -> tuple[list[TranscriptEntry], list[str]]:
    """Model-call entries of one transcript, plus a problem per unreadable line (path:line).

    Lines of other kinds (a judge may log more than model calls) are skipped silently.
    """
    entries: list[TranscriptEntry] = []
    problems: list[str] = []
    for number, line in numbered_lines(path):
        try:
            data = json.loads(line)
            if isinstance(data, dict) and data.get("kind", "model_call") != "model_call":
                continue
            entries.append(TranscriptEntry.model_validate(data))
        except (ValueError, ValidationError) as err:
            problems.append(f"{path}:{number}: {in_one_line(err, 'entry')}")
    return entries, problems


class ReplayClient:
    """Answers requests from the transcripts under `run_dir` (searched recursively).

    When a request was recorded several times, its recordings are served in order and the last
    one repeats. Responses carry their recorded usage, i.e. what the original run spent.
    Raises ReplayError at construction when `run_dir` holds no transcript, and ReplayMissError
    for a request that was never recorded.
    """

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        if not run_dir.is_dir():
            raise ReplayError(f"replay: {run_dir} is not a directory")
        files = sorted(run_dir.rglob(TRANSCRIPT))
        if not files:
            raise ReplayError(f"replay: no {TRANSCRIPT} under {run_dir}; "
                              "was it recorded by a model judge?")
        self._lock = threading.Lock()
        self._answers: dict[str, list[TranscriptEntry]] = defaultdict(list)
        self._served: dict[str, int] = defaultdict(int)
        self._recorded: list[tuple[Path, TranscriptEntry]] = []  # for miss diagnostics
        self.problems: list[str] = []
        for path in files:
            entries, problems = read_transcript(path)
            self.problems += problems
            for entry in entries:
                self._answers[entry.key].append(entry)
                self._recorded.append((path, entry))
        self.recorded_calls = len(self._recorded)
        for problem in self.problems:
            log.warning("replay: unreadable transcript line skipped", problem=problem)
        self.transcripts = len(files)

    def complete(self, request: ModelRequest) -> ModelResponse:
        key = request_key(request)
        with self._lock:
            recorded = self._answers.get(key)
            if not recorded:
                raise ReplayMissError(self._miss_message(request, key))
            index = min(self._served[key], len(recorded) - 1)
            self._served[key] += 1
        entry = recorded[index]
        if entry.response is None:
            raise ModelError(entry.error or "recorded call failed without a message",
                             attempts=1 if entry.attempts is None else entry.attempts)
        return entry.response

    def _miss_message(self, request: ModelRequest, key: str) -> str:
        skipped = f"; {len(self.problems)} unreadable line(s) skipped" if self.problems else ""
        return (f"replay: no recorded answer for request {key[:12]} (model {request.model}, "
                f"{len(request.messages)} message(s)) among {self.recorded_calls} recorded call(s) "
                f"in {self.transcripts} transcript(s) under {self.run_dir}{skipped}; "
                f"{self._closest(request)}")

    def _closest(self, request: ModelRequest) -> str:
        """Name the recording most like `request` and where they differ, to explain a miss."""
        best: tuple[tuple[int, int], Path, TranscriptEntry, list[str]] | None = None
        for path, entry in self._recorded:
            differences = request_differences(entry.request, request)
            same_messages = _common_prefix(entry.request.messages, request.messages)
            score = (-len([d for d in differences if not d.startswith("messages")]),
                     same_messages)
            if best is None or score > best[0]:
                best = (score, path, entry, differences)
        if best is None:
            return "the run recorded no successful call to compare with"
        _, path, entry, differences = best
        return (f"closest recording is call {entry.seq} of {path}, which differs in "
                f"{', '.join(differences)}")


def _common_prefix(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def request_differences(recorded: ModelRequest, asked: ModelRequest) -> list[str]:
    """Top-level fields that differ, with the first differing message as `messages[i]`."""
    before, after = recorded.model_dump(), asked.model_dump()
    fields = [name for name in before if name != "messages" and before[name] != after[name]]
    if recorded.messages != asked.messages:
        index = _common_prefix(recorded.messages, asked.messages)
        fields.append(f"messages[{index}]")
    return fields
