"""Usage per call, per case and per run, read back from transcripts, equals the server's usage."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.models import (
    TRANSCRIPT,
    ModelError,
    ModelRequest,
    RecordingClient,
    make_client,
    run_usage,
    system_blocks,
    transcript_usage,
)
from tests.fakeapi import FakeMessagesServer, ReceivedRequest, Reply, http_error, reply, text
from tests.models.conftest import FAST


def ask(case: str, turn: int) -> ModelRequest:
    return ModelRequest(model="claude-sonnet-4-6",
                        system=system_blocks(["constant prompt " * 50], [case]),
                        messages=[{"role": "user", "content": f"{case}/{turn}"}])


def test_sums_match_the_server_usage_fields(fake_api: FakeMessagesServer,
                                            tmp_path: Path) -> None:
    served: list[dict[str, int]] = []

    def answer(request: ReceivedRequest) -> Reply:
        message = fake_api.message_json(reply(text("ok")), request.body)  # simulated usage
        served.append(message["usage"])
        return reply(text("ok"), usage=message["usage"])

    fake_api.responder = answer
    live = make_client(base_url=fake_api.base_url, retry=FAST)
    for case, turns in [("a", 2), ("b", 3)]:
        recorder = RecordingClient(live, tmp_path / case / TRANSCRIPT)
        for turn in range(turns):
            recorder.complete(ask(case, turn))
        assert recorder.usage == transcript_usage(tmp_path / case / TRANSCRIPT)
    fake_api.push(*[http_error(500) for _ in range(FAST.max_attempts)])
    with pytest.raises(ModelError):
        RecordingClient(live, tmp_path / "c" / TRANSCRIPT).complete(ask("c", 0))

    run = run_usage(tmp_path)

    for field in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                  "output_tokens"):
        assert getattr(run.total, field) == sum(u[field] for u in served), field
    assert run.total.cache_read_input_tokens > 0  # later cases read the cached prefix
    assert run.total.calls == 5 and run.failed_calls == 1
    assert sorted(run.per_case) == ["a", "b", "c"]
    assert run.per_case["a"].calls == 2 and run.per_case["c"].calls == 0
    assert run.total.cost_usd == pytest.approx(sum(u.cost_usd for u in run.per_case.values()))
    assert run.total.cost_usd > 0
