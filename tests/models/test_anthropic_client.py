"""AnthropicClient through the real anthropic SDK against the fake Messages API server."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from judge_runner import cancel
from judge_runner.models import (
    AnthropicClient,
    ModelCallError,
    ModelError,
    ModelPrice,
    ModelRequest,
    PriceTable,
    RetryPolicy,
    Usage,
    make_client,
    system_blocks,
)
from tests import fakeapi
from tests.fakeapi import FakeMessagesServer, HttpError, http_error, reply, text, tool_use
from tests.models.conftest import FAST

PRICES = PriceTable(models={"judge-model": ModelPrice(input=3.0, cache_write=3.75,
                                                      cache_read=0.3, output=15.0)})
SECRET = "sk-ant-test-0123456789-never-log-me"


def request(content: str = "judge this") -> ModelRequest:
    return ModelRequest(model="judge-model",
                        system=system_blocks(["constant judge prompt " * 20], ["case overview"]),
                        messages=[{"role": "user", "content": content}])


def client(server: FakeMessagesServer, retry: RetryPolicy = FAST, timeout_s: float = 5.0,
           api_key: str | None = None) -> AnthropicClient:
    return AnthropicClient(base_url=server.base_url, retry=retry, timeout_s=timeout_s,
                           prices=PRICES, api_key=api_key)


def test_reply_content_and_request_shape(fake_api: FakeMessagesServer) -> None:
    plan = tool_use("write_plan", {"items": [{"id": "P1"}]})
    fake_api.push(reply(text("planning"), plan))

    response = client(fake_api).complete(request())

    assert response.content == [text("planning"), plan]
    assert response.stop_reason == "tool_use"
    sent = fake_api.bodies[0]
    assert sent["temperature"] == 0.0
    assert sent["model"] == "judge-model"
    assert "stream" not in sent or sent["stream"] is False
    assert sent["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in sent["system"][1]
    assert fake_api.requests[0].headers["x-stainless-retry-count"] == "0"


def test_usage_and_cost_follow_the_server_usage_fields(fake_api: FakeMessagesServer) -> None:
    fake_api.push(
        reply(text("a"), usage={"input_tokens": 120, "cache_creation_input_tokens": 2000,
                                "cache_read_input_tokens": 0, "output_tokens": 40}),
        reply(text("b"), usage={"input_tokens": 130, "cache_creation_input_tokens": 0,
                                "cache_read_input_tokens": 2000, "output_tokens": 60}),
        # Servers may send null cache fields (no caching): counted as 0.
        reply(text("c"), usage={"input_tokens": 10, "cache_creation_input_tokens": None,
                                "cache_read_input_tokens": None, "output_tokens": 5}),
    )
    model = client(fake_api)

    usages = [model.complete(request(str(i))).usage for i in range(3)]
    total = sum(usages, Usage())

    assert total.input_tokens == 260
    assert total.cache_creation_input_tokens == 2000
    assert total.cache_read_input_tokens == 2000
    assert total.output_tokens == 105
    assert total.calls == 3 and total.retries == 0
    expected = (260 * 3.0 + 2000 * 3.75 + 2000 * 0.3 + 105 * 15.0) / 1e6
    assert total.cost_usd == pytest.approx(expected)
    assert usages[0].cost_usd == pytest.approx((120 * 3 + 2000 * 3.75 + 40 * 15) / 1e6)


@pytest.mark.parametrize("status", [429, 500, 502, 503, 529])
def test_retryable_status_is_retried_and_counted(fake_api: FakeMessagesServer,
                                                 status: int) -> None:
    fake_api.push(http_error(status), http_error(status), reply(text("ok")))

    response = client(fake_api).complete(request())

    assert response.content == [text("ok")]
    assert len(fake_api.requests) == 3
    assert response.usage.retries == 2
    # The SDK's own retry loop is off: every attempt is a fresh first try to the SDK.
    assert {r.headers["x-stainless-retry-count"] for r in fake_api.requests} == {"0"}


def test_retry_after_is_honoured(fake_api: FakeMessagesServer) -> None:
    fake_api.push(http_error(429, retry_after=0.4), reply(text("ok")))

    client(fake_api).complete(request())

    first, second = fake_api.requests
    assert second.received_at - first.received_at >= 0.4


def test_retry_after_ms_is_honoured_and_capped(fake_api: FakeMessagesServer) -> None:
    fake_api.push(HttpError(status=529, headers={"retry-after-ms": "300"}),
                  HttpError(status=529, headers={"retry-after": "3600"}),
                  reply(text("ok")))
    capped = FAST.model_copy(update={"max_retry_after_s": 0.05})

    started = time.monotonic()
    client(fake_api, retry=capped).complete(request())

    a, b, _ = fake_api.requests
    assert b.received_at - a.received_at >= 0.05  # 300 ms asked, capped at 50 ms
    assert b.received_at - a.received_at < 0.29
    assert time.monotonic() - started < 2.0  # the one-hour retry-after was capped too


def test_timeouts_are_retried(fake_api: FakeMessagesServer) -> None:
    fake_api.push(fakeapi.Slow(2.0, then=reply(text("too late"))), reply(text("in time")))

    response = client(fake_api, timeout_s=0.3).complete(request())

    assert response.content == [text("in time")]
    assert response.usage.retries == 1
    assert len(fake_api.requests) == 2


def test_dropped_connections_are_retried(fake_api: FakeMessagesServer) -> None:
    fake_api.push(fakeapi.Drop(), reply(text("ok")))

    response = client(fake_api).complete(request())

    assert response.usage.retries == 1
    assert len(fake_api.requests) == 2


def test_persistent_failure_ends_in_model_error_after_the_bound(
        fake_api: FakeMessagesServer) -> None:
    fake_api.push(*[http_error(529) for _ in range(10)])

    with pytest.raises(ModelCallError) as caught:
        client(fake_api).complete(request())

    assert len(fake_api.requests) == FAST.max_attempts
    assert caught.value.attempts == FAST.max_attempts
    assert caught.value.status == 529
    assert "retries exhausted" in str(caught.value)
    assert "529" in str(caught.value)


def test_persistent_timeouts_end_in_model_error(fake_api: FakeMessagesServer) -> None:
    fake_api.push(*[fakeapi.Slow(2.0) for _ in range(3)])
    policy = FAST.model_copy(update={"max_attempts": 3})

    with pytest.raises(ModelCallError, match=r"3 attempt\(s\).*timed out"):
        client(fake_api, retry=policy, timeout_s=0.2).complete(request())
    assert len(fake_api.requests) == 3


@pytest.mark.parametrize("status", [400, 401, 403, 404, 413])
def test_non_retryable_status_fails_at_once(fake_api: FakeMessagesServer, status: int) -> None:
    fake_api.push(http_error(status, message="nope"), reply(text("never sent")))

    with pytest.raises(ModelCallError) as caught:
        client(fake_api).complete(request())

    assert len(fake_api.requests) == 1
    assert caught.value.status == status and caught.value.attempts == 1
    assert "nope" in str(caught.value)


def test_malformed_body_is_a_clear_model_error(fake_api: FakeMessagesServer) -> None:
    fake_api.push(fakeapi.Malformed())

    with pytest.raises(ModelCallError, match="not JSON"):
        client(fake_api).complete(request())


def test_json_that_is_not_a_message_is_a_clear_model_error(fake_api: FakeMessagesServer) -> None:
    flat = json.dumps({"id": "x", "content": "flat string"}).encode()
    fake_api.push(fakeapi.Malformed(body=flat))

    with pytest.raises(ModelCallError, match="not with a Messages response") as caught:
        client(fake_api).complete(request())
    assert "content" in str(caught.value) and "usage" in str(caught.value)


def test_stream_true_is_refused_by_the_fake_server(fake_api: FakeMessagesServer) -> None:
    # The client never streams; this pins down the documented limit of the test double.
    import httpx2

    answer = httpx2.post(f"{fake_api.base_url}/v1/messages",
                         json={"model": "m", "max_tokens": 1, "messages": [], "stream": True},
                         headers={"anthropic-version": "2023-06-01"})
    assert answer.status_code == 400
    assert "stream=false" in answer.text


def test_key_never_appears_in_errors_or_logs(fake_api: FakeMessagesServer, log_file: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    # A misbehaving proxy echoes the credential back in its error message.
    echo = HttpError(status=500, message=f"bad credential Bearer {SECRET}")
    fake_api.push(echo, echo, HttpError(status=401, message=f"invalid key {SECRET}"))

    model = make_client(base_url=fake_api.base_url, retry=FAST)
    with pytest.raises(ModelError) as caught:
        model.complete(request())

    assert fake_api.requests[0].headers["authorization"] == f"Bearer {SECRET}"  # it was sent
    assert SECRET not in str(caught.value)
    assert SECRET not in repr(model)
    logged = log_file.read_text()
    assert "retrying" in logged and "[redacted]" in logged
    assert SECRET not in logged


def test_remote_server_without_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY is not set") as caught:
        make_client(base_url="https://user:tok3n@models.example.invalid/v?key=tok3n")
    assert "tok3n" not in str(caught.value)
    assert "https://models.example.invalid/v" in str(caught.value)


def test_credentials_in_the_base_url_stay_out_of_errors(fake_api: FakeMessagesServer) -> None:
    fake_api.push(http_error(403, message="forbidden"))
    url = fake_api.base_url.replace("http://", "http://proxyuser:pr0xy-secret@")
    model = AnthropicClient(base_url=url, retry=FAST, prices=PRICES)

    with pytest.raises(ModelCallError) as caught:
        model.complete(request())

    assert "pr0xy-secret" not in str(caught.value) and "pr0xy-secret" not in repr(model)
    assert f"127.0.0.1:{fake_api.port}" in str(caught.value)


def test_local_server_without_key_gets_a_dummy(fake_api: FakeMessagesServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    fake_api.push(reply(text("ok")))

    make_client(base_url=fake_api.base_url).complete(request())

    assert fake_api.requests[0].headers["authorization"] == "Bearer local-server-no-key"


def test_model_that_rejects_temperature_is_asked_without_one(
        fake_api: FakeMessagesServer) -> None:
    fake_api.push(http_error(400, message="temperature is deprecated for this model"),
                  reply(text("first")), reply(text("second")))
    model = client(fake_api)

    first = model.complete(request("one"))
    second = model.complete(request("two"))

    sent = fake_api.bodies
    assert "temperature" in sent[0]
    assert "temperature" not in sent[1] and "temperature" not in sent[2]
    assert first.content == [text("first")] and first.usage.retries == 1
    assert second.content == [text("second")] and second.usage.retries == 0
    assert first.temperature_dropped and second.temperature_dropped


def test_a_recording_says_when_the_temperature_was_not_sent(
        fake_api: FakeMessagesServer, tmp_path: Path) -> None:
    from judge_runner.models.recording import RecordingClient, read_transcript

    fake_api.push(reply(text("kept")), http_error(400, message="temperature is deprecated"),
                  reply(text("dropped")))
    recorder = RecordingClient(client(fake_api), tmp_path / "transcript.jsonl")
    recorder.complete(request("one").model_copy(update={"model": "keeps-temperature"}))
    recorder.complete(request("two"))
    entries, _ = read_transcript(tmp_path / "transcript.jsonl")
    assert [e.request.temperature for e in entries] == [0.0, 0.0]  # what the judge asked for
    assert [e.response.temperature_dropped for e in entries if e.response] == [False, True]


def test_other_bad_requests_are_not_resent(fake_api: FakeMessagesServer) -> None:
    fake_api.push(http_error(400, message="messages: field required"), reply(text("no")))
    with pytest.raises(ModelCallError):
        client(fake_api).complete(request())
    assert len(fake_api.requests) == 1


def test_one_client_serves_parallel_cases_and_counts_every_retry(
        fake_api: FakeMessagesServer) -> None:
    lock = threading.Lock()
    seen: set[str] = set()

    def flaky(received: fakeapi.ReceivedRequest) -> fakeapi.Reply | HttpError:
        """The first attempt of every even-numbered case is rate limited."""
        prompt = received.body["messages"][0]["content"]
        with lock:
            first_attempt = prompt not in seen
            seen.add(prompt)
        if first_attempt and int(prompt.split("-")[1]) % 2 == 0:
            return http_error(429, retry_after=0)
        return reply(text(f"answer to {prompt}"))

    fake_api.responder = flaky
    model = client(fake_api)
    prompts = [f"case-{i}" for i in range(24)]

    with ThreadPoolExecutor(max_workers=8) as pool:
        responses = list(pool.map(lambda p: model.complete(request(p)), prompts))

    assert [r.content[0]["text"] for r in responses] == [f"answer to {p}" for p in prompts]
    assert [r.usage.retries for r in responses] == [1 - i % 2 for i in range(24)]
    assert len(fake_api.requests) == 24 + 12


def test_cancellation_cuts_a_retry_wait_short(fake_api: FakeMessagesServer) -> None:
    fake_api.push(http_error(529, retry_after=30), reply(text("never asked for")))
    event = threading.Event()

    def cancel_once_the_first_attempt_was_answered() -> None:
        # Cancel during the wait, not before the first request: on a loaded machine a fixed
        # timer can fire before the client has sent anything.
        deadline = time.monotonic() + 60
        while not fake_api.bodies and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        event.set()

    threading.Thread(target=cancel_once_the_first_attempt_was_answered, daemon=True).start()
    started = time.monotonic()
    with cancel.scope(event), pytest.raises(cancel.Cancelled):
        client(fake_api, retry=RetryPolicy(max_attempts=3)).complete(request())
    assert time.monotonic() - started < 20.0  # not the 30 s the server asked for
    assert len(fake_api.bodies) == 1


def test_a_cancelled_run_sends_nothing(fake_api: FakeMessagesServer) -> None:
    event = threading.Event()
    event.set()
    with cancel.scope(event), pytest.raises(cancel.Cancelled):
        client(fake_api).complete(request())
    assert fake_api.bodies == []
    fake_api.push(reply(text("outside the cancelled scope")))
    assert client(fake_api).complete(request()).content == [text("outside the cancelled scope")]
