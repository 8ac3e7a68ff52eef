"""Recording every call into a case transcript, and replaying a run with the server stopped."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.models import (
    TRANSCRIPT,
    ModelError,
    ModelRequest,
    ModelResponse,
    RecordingClient,
    ReplayClient,
    ReplayError,
    ReplayMissError,
    Usage,
    make_client,
    request_key,
    system_blocks,
)
from judge_runner.models.recording import read_transcript
from tests.fakeapi import FakeMessagesServer, ReceivedRequest, Reply, http_error, reply, text
from tests.fakeapi import tool_use as tool_use_block
from tests.models.conftest import FAST

SECRET = "sk-ant-recording-secret-5f1e2d3c"


def ask(case: str, turn: int) -> ModelRequest:
    return ModelRequest(model="judge-model", system=system_blocks(["judge prompt"], [case]),
                        messages=[{"role": "user", "content": f"{case} turn {turn}"}])


def echo(request: ReceivedRequest) -> Reply:
    """Answers depend on the request, so a replay that mixes answers up is caught."""
    last = request.body["messages"][-1]["content"]
    return reply(text(f"seen: {last}"), tool_use_block("record_inspection", {"about": last}))


def record_run(server: FakeMessagesServer, run_dir: Path,
               cases: list[str]) -> dict[str, list[ModelResponse]]:
    server.responder = echo
    live = make_client(base_url=server.base_url, retry=FAST)
    answers: dict[str, list[ModelResponse]] = {}
    for case in cases:
        recorder = RecordingClient(live, run_dir / "cases" / case / TRANSCRIPT)
        answers[case] = [recorder.complete(ask(case, turn)) for turn in range(3)]
    return answers


def test_replay_reproduces_responses_with_the_server_stopped(
        fake_api: FakeMessagesServer, tmp_path: Path) -> None:
    recorded = record_run(fake_api, tmp_path / "run", ["case-a", "case-b"])
    fake_api.stop()

    replay = make_client(replay=tmp_path / "run")
    # Different order from the recording: lookup is by content, not by position.
    for case in ["case-b", "case-a"]:
        for turn in reversed(range(3)):
            assert replay.complete(ask(case, turn)) == recorded[case][turn]


def test_replay_run_records_its_own_transcripts(fake_api: FakeMessagesServer,
                                                tmp_path: Path) -> None:
    record_run(fake_api, tmp_path / "run", ["case-a"])
    fake_api.stop()
    replayed = RecordingClient(ReplayClient(tmp_path / "run"), tmp_path / "again" / TRANSCRIPT)

    for turn in range(3):
        replayed.complete(ask("case-a", turn))

    original, _ = read_transcript(tmp_path / "run" / "cases" / "case-a" / TRANSCRIPT)
    again, _ = read_transcript(tmp_path / "again" / TRANSCRIPT)
    assert [e.response for e in again] == [e.response for e in original]
    assert replayed.usage == sum((e.response.usage for e in original if e.response), Usage())
    assert replayed.usage.calls == 3


def test_replay_miss_is_a_clear_error(fake_api: FakeMessagesServer, tmp_path: Path) -> None:
    record_run(fake_api, tmp_path / "run", ["case-a"])
    fake_api.stop()
    replay = ReplayClient(tmp_path / "run")
    changed = ask("case-a", 0).model_copy(update={"temperature": 0.5})

    with pytest.raises(ReplayMissError) as caught:
        replay.complete(changed)

    message = str(caught.value)
    assert request_key(changed)[:12] in message
    assert "3 recorded call(s) in 1 transcript(s)" in message
    assert str(tmp_path / "run") in message
    assert message.endswith("closest recording is call 0 of "
                            f"{tmp_path / 'run' / 'cases' / 'case-a' / TRANSCRIPT}, "
                            "which differs in temperature")


def test_replay_miss_names_the_first_differing_message(fake_api: FakeMessagesServer,
                                                       tmp_path: Path) -> None:
    record_run(fake_api, tmp_path / "run", ["case-a"])
    fake_api.stop()
    recorded = ask("case-a", 1)
    diverged = recorded.model_copy(update={"messages": [*recorded.messages,
                                                        {"role": "user", "content": "new"}]})

    with pytest.raises(ReplayMissError, match=r"call 1 of .* differs in messages\[1\]$"):
        ReplayClient(tmp_path / "run").complete(diverged)


def test_recorded_failures_replay_as_failures(fake_api: FakeMessagesServer,
                                              tmp_path: Path) -> None:
    fake_api.push(*[http_error(529) for _ in range(FAST.max_attempts)])
    recorder = RecordingClient(make_client(base_url=fake_api.base_url, retry=FAST),
                               tmp_path / "run" / TRANSCRIPT)
    with pytest.raises(ModelError) as live_error:
        recorder.complete(ask("case-a", 0))
    fake_api.stop()

    with pytest.raises(ModelError) as replayed_error:
        ReplayClient(tmp_path / "run").complete(ask("case-a", 0))

    assert str(replayed_error.value) == str(live_error.value)


def test_repeated_requests_replay_in_recorded_order(fake_api: FakeMessagesServer,
                                                    tmp_path: Path) -> None:
    fake_api.push(reply(text("first")), reply(text("second")))
    recorder = RecordingClient(make_client(base_url=fake_api.base_url, retry=FAST),
                               tmp_path / TRANSCRIPT)
    recorder.complete(ask("case-a", 0))
    recorder.complete(ask("case-a", 0))
    fake_api.stop()

    replay = ReplayClient(tmp_path)
    served = [replay.complete(ask("case-a", 0)).content[0]["text"] for _ in range(3)]

    assert served == ["first", "second", "second"]


def test_transcript_keeps_one_session(fake_api: FakeMessagesServer, tmp_path: Path) -> None:
    fake_api.responder = echo
    live = make_client(base_url=fake_api.base_url, retry=FAST)
    path = tmp_path / TRANSCRIPT
    RecordingClient(live, path).complete(ask("case-a", 0))
    RecordingClient(live, path).complete(ask("case-a", 1))  # the case judged again

    entries, problems = read_transcript(path)
    assert [e.request for e in entries] == [ask("case-a", 1)]
    assert [e.seq for e in entries] == [0] and not problems


def test_unreadable_lines_are_reported_not_fatal(fake_api: FakeMessagesServer,
                                                 tmp_path: Path) -> None:
    record_run(fake_api, tmp_path / "run", ["case-a"])
    path = tmp_path / "run" / "cases" / "case-a" / TRANSCRIPT
    with path.open("a") as out:
        out.write("{not json\n")
        out.write('{"kind": "tool_event", "anything": 1}\n')  # other kinds are skipped

    replay = ReplayClient(tmp_path / "run")

    assert replay.recorded_calls == 3
    assert replay.problems == [f"{path}:4: " + replay.problems[0].split(": ", 1)[1]]
    assert replay.complete(ask("case-a", 2)).content[0]["text"] == "seen: case-a turn 2"


def test_replay_of_a_folder_without_transcripts_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match=r"no transcript\.jsonl"):
        ReplayClient(tmp_path)
    with pytest.raises(ReplayError, match="not a directory"):
        ReplayClient(tmp_path / "missing")


def test_api_key_never_reaches_a_transcript(fake_api: FakeMessagesServer, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    # A model that quotes the credential back (e.g. prompt-injected tooling) must not leak it.
    fake_api.push(reply(text(f"the header said {SECRET}")),
                  http_error(400, message=f"bad key {SECRET}"))
    recorder = RecordingClient(make_client(base_url=fake_api.base_url, retry=FAST),
                               tmp_path / TRANSCRIPT)

    recorder.complete(ask("case-a", 0))
    with pytest.raises(ModelError):
        recorder.complete(ask("case-a", 1))

    assert fake_api.requests[0].headers["authorization"].endswith(SECRET)  # it was used
    written = (tmp_path / TRANSCRIPT).read_text()
    assert len(written.splitlines()) == 2
    assert SECRET not in written


def test_a_bad_transcript_line_is_named_by_its_field(tmp_path: Path) -> None:
    from judge_runner.models.recording import read_transcript

    path = tmp_path / "transcript.jsonl"
    path.write_text('{"kind": "model_call", "request": {}, "bogus": 1}\nnot json\n')
    entries, problems = read_transcript(path)
    assert entries == [] and len(problems) == 2
    first, second = problems
    assert first.startswith(f"{path}:1: ") and "validation error" not in first
    assert "bogus: unknown field" in first or ": Field required" in first
    assert second.startswith(f"{path}:2: ")
