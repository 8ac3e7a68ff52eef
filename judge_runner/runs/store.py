"""The run store: one SQLite file per run directory holding every verdict as soon as it exists.

A run directory belongs to exactly one judge configuration (identified by `config_hash`). Opening
it with another configuration raises `ConfigMismatchError` instead of mixing verdicts of two
judges. Each verdict is committed in its own transaction (WAL journal), so a process killed with
SIGKILL loses only the cases that were still being judged.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from judge_runner.closing import ClosedOnExit
from judge_runner.core import Decision, Verdict
from judge_runner.text import sha256_text

STORE_FILE = "run.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS run (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    config_hash TEXT NOT NULL,
    judge TEXT NOT NULL,
    config_json TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS verdicts (
    case_id TEXT PRIMARY KEY,
    decision TEXT NOT NULL,
    verdict_json TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 1,
    finished_at TEXT NOT NULL
);
"""


def config_hash(judge_name: str, config: dict[str, Any]) -> str:
    """Stable hash of everything that changes verdicts; key order and whitespace do not matter."""
    canonical = json.dumps({"judge": judge_name, "config": config}, sort_keys=True,
                           separators=(",", ":"), default=str)
    return sha256_text(canonical)


def run_dir_name(judge_name: str, config: dict[str, Any], split: str) -> str:
    """The default run directory name of a judge configuration on a split,
    `<judge>-<split>-<config hash[:10]>`: `eval` and `experiment run` both use it, so either
    finds the other's run of the same configuration."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", judge_name)
    return f"{safe}-{split}-{config_hash(judge_name, config)[:10]}"


class RunInfo(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    config_hash: str
    judge: str
    config: dict[str, Any]
    created_at: str


class ConfigMismatchError(RuntimeError):
    """The run directory already holds verdicts of a different judge configuration."""


class RunStore(ClosedOnExit):
    """Thread-safe access to `<run_dir>/run.sqlite`. Use as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # durable across process crashes
        self._db.executescript(_SCHEMA)

    @classmethod
    def open(cls, run_dir: Path) -> RunStore:
        return cls(run_dir / STORE_FILE)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def info(self) -> RunInfo | None:
        with self._lock:
            row = self._db.execute(
                "SELECT config_hash, judge, config_json, created_at FROM run WHERE id = 1"
            ).fetchone()
        if row is None:
            return None
        return RunInfo(config_hash=row[0], judge=row[1], config=json.loads(row[2]),
                       created_at=row[3])

    def bind(self, judge_name: str, config: dict[str, Any]) -> RunInfo:
        """Claim the store for this configuration, or check it already belongs to it.

        Raises ConfigMismatchError naming the differing keys when another configuration owns it.
        """
        digest = config_hash(judge_name, config)
        existing = self.info()
        if existing is None:
            now = _now()
            config_json = json.dumps(config, sort_keys=True, default=str)
            with self._lock:
                self._db.execute(
                    "INSERT INTO run (id, config_hash, judge, config_json, created_at) "
                    "VALUES (1, ?, ?, ?, ?)", (digest, judge_name, config_json, now))
            return RunInfo(config_hash=digest, judge=judge_name,
                           config=json.loads(config_json), created_at=now)
        if existing.config_hash != digest:
            raise ConfigMismatchError(_mismatch_message(self.path, existing, judge_name, config))
        return existing

    def put(self, verdict: Verdict) -> None:
        """Commit one verdict (replacing an earlier one for the same case, counting attempts)."""
        with self._lock:
            self._db.execute(
                "INSERT INTO verdicts (case_id, decision, verdict_json, attempts, finished_at) "
                "VALUES (?, ?, ?, 1, ?) ON CONFLICT(case_id) DO UPDATE SET "
                "decision = excluded.decision, verdict_json = excluded.verdict_json, "
                "attempts = verdicts.attempts + 1, finished_at = excluded.finished_at",
                (verdict.case_id, verdict.decision.value, verdict.model_dump_json(), _now()))

    def verdicts(self) -> dict[str, Verdict]:
        with self._lock:
            rows = self._db.execute(
                "SELECT verdict_json FROM verdicts ORDER BY case_id").fetchall()
        return {v.case_id: v for v in (Verdict.model_validate_json(r[0]) for r in rows)}

    def attempts(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute("SELECT case_id, attempts FROM verdicts").fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def finished(self, retry_errors: bool = False) -> set[str]:
        """Case ids that need no judging; with `retry_errors`, error verdicts do not count."""
        query = "SELECT case_id FROM verdicts"
        if retry_errors:
            query += f" WHERE decision != '{Decision.ERROR.value}'"
        with self._lock:
            return {r[0] for r in self._db.execute(query).fetchall()}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _mismatch_message(path: Path, existing: RunInfo, judge: str, config: dict[str, Any]) -> str:
    keys = sorted(k for k in set(existing.config) | set(config)
                  if json.dumps(existing.config.get(k), sort_keys=True, default=str)
                  != json.dumps(config.get(k), sort_keys=True, default=str))
    if existing.judge != judge:
        keys.insert(0, "judge")
    return (f"{path} holds a run of judge {existing.judge!r} with another configuration "
            f"(differs in: {', '.join(keys) or 'config'}); verdicts are never mixed — "
            f"choose another --run-dir")
