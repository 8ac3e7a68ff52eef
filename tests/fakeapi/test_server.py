"""The fake Messages API itself: scripting, responders, recording, teardown."""

from __future__ import annotations

import threading
import time

import pytest

from judge_runner.models import ModelClient, ModelError, ModelRequest, make_client
from tests.fakeapi import (
    ALL_REQUESTS,
    FakeMessagesServer,
    ReceivedRequest,
    Reply,
    Slow,
    http_error,
    reply,
    text,
    tool_use,
)
from tests.models.conftest import FAST


def test_responder_reacts_to_tool_results(fake_api: FakeMessagesServer) -> None:
    def script(request: ReceivedRequest) -> Reply:
        results = request.tool_results()
        if not results:
            return reply(tool_use("bash", {"cmd": "ls /case"}, id="toolu_1"))
        return reply(text(f"listing was: {results['toolu_1']}"))

    fake_api.responder = script
    client = make_client(base_url=fake_api.base_url, retry=FAST)
    first = client.complete(ModelRequest(model="m", system=[], messages=[
        {"role": "user", "content": "go"}]))
    second = client.complete(ModelRequest(model="m", system=[], messages=[
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": "trajectory.json"}]},
    ]))

    assert second.content == [text("listing was: trajectory.json")]


def test_script_runs_before_responder_and_requests_are_kept(fake_api: FakeMessagesServer) -> None:
    fake_api.push(http_error(429, retry_after=0))
    fake_api.responder = lambda _: reply(text("from responder"))
    before = len(ALL_REQUESTS)

    response = make_client(base_url=fake_api.base_url, retry=FAST).complete(
        ModelRequest(model="m", system=[], messages=[{"role": "user", "content": "marker-7f3a"}]))

    assert response.content == [text("from responder")]
    assert fake_api.pending == 0
    assert [b["messages"][0]["content"] for b in fake_api.bodies] == ["marker-7f3a"] * 2
    # The session-wide registry saw both attempts too.
    assert sum("marker-7f3a" in r.text for r in ALL_REQUESTS[before:]) == 2


def test_unscripted_request_fails_fast_with_a_clear_message(fake_api: FakeMessagesServer) -> None:
    client = make_client(base_url=fake_api.base_url, retry=FAST)
    with pytest.raises(ModelError, match="no scripted response left"):
        client.complete(ModelRequest(model="m", system=[], messages=[]))
    assert len(fake_api.requests) == 1  # 418 is not retried


def test_stop_does_not_wait_for_slow_answers() -> None:
    server = FakeMessagesServer().start()
    server.push(Slow(30.0, then=reply(text("late"))))
    client = make_client(base_url=server.base_url, retry=FAST.model_copy(
        update={"max_attempts": 1}), timeout_s=60)
    failures: list[ModelError] = []
    caller = threading.Thread(target=_call, args=(client, failures), daemon=True)
    caller.start()
    while not server.requests:
        time.sleep(0.01)

    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 3.0
    caller.join(timeout=5)
    assert not caller.is_alive()
    assert len(failures) == 1 and "connection error" in str(failures[0])


def _call(client: ModelClient, failures: list[ModelError]) -> None:
    try:
        client.complete(ModelRequest(model="m", system=[], messages=[]))
    except ModelError as err:  # the server going away mid-call is the scenario under test
        failures.append(err)
