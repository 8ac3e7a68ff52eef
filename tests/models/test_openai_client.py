"""OpenAIClient (real `openai` SDK) and provider routing against scripted servers on 127.0.0.1:
the fake Chat Completions server beside the fake Messages server."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from judge_runner.models import (
    ModelError,
    ModelPrice,
    ModelRequest,
    PriceTable,
    RecordingClient,
    deadline,
    make_client,
)
from judge_runner.models.openai_client import OpenAIClient, chat_base_url
from judge_runner.models.providers import split_model
from judge_runner.models.recording import read_transcript
from tests.fakeapi import (
    FakeChatServer,
    FakeMessagesServer,
    Malformed,
    Slow,
    http_error,
    reply,
    text,
    tool_use,
)
from tests.models.conftest import FAST

TOOL = {"name": "submit_verdict", "description": "decide",
        "input_schema": {"type": "object", "properties": {"decision": {"type": "string"}}}}
PRICES = PriceTable(models={"gpt-test": ModelPrice(input=2.0, cache_write=0.0, cache_read=0.5,
                                                   output=8.0)})


def request(model: str = "gpt-test", **update: object) -> ModelRequest:
    base = ModelRequest(
        model=model, system=[{"type": "text", "text": "judge carefully",
                              "cache_control": {"type": "ephemeral"}}],
        messages=[{"role": "user", "content": "case text"}],
        tools=[TOOL], tool_choice={"type": "tool", "name": "submit_verdict"}, max_tokens=300)
    return base.model_copy(update=update)


def client(api: FakeChatServer, **kw: object) -> OpenAIClient:
    return OpenAIClient(base_url=api.base_url, api_key=None, retry=FAST, prices=PRICES,
                        **kw)  # type: ignore[arg-type]


def test_request_and_answer_are_converted_both_ways(fake_chat_api: FakeChatServer) -> None:
    fake_chat_api.push(reply(text("thinking"), tool_use("submit_verdict", {"decision": "fail"},
                                                        id="call_1"),
                             usage={"prompt_tokens": 1000, "completion_tokens": 40,
                                    "prompt_tokens_details": {"cached_tokens": 600}}))
    response = client(fake_chat_api).complete(request())

    body = fake_chat_api.bodies[0]
    assert body["messages"] == [{"role": "system", "content": "judge carefully"},
                                {"role": "user", "content": "case text"}]
    assert body["tools"][0] == {"type": "function", "function": {
        "name": "submit_verdict", "description": "decide", "parameters": TOOL["input_schema"]}}
    assert body["tool_choice"] == "required"  # the only tool, named: same constraint
    assert body["max_completion_tokens"] == 300 and body["temperature"] == 0.0
    assert response.content == [
        {"type": "text", "text": "thinking"},
        {"type": "tool_use", "id": "call_1", "name": "submit_verdict",
         "input": {"decision": "fail"}}]
    assert response.stop_reason == "tool_use"
    u = response.usage
    assert (u.input_tokens, u.cache_read_input_tokens, u.output_tokens) == (400, 600, 40)
    assert u.cost_usd == pytest.approx((400 * 2.0 + 600 * 0.5 + 40 * 8.0) / 1e6)


def test_tool_conversation_becomes_tool_messages_with_their_ids(
    fake_chat_api: FakeChatServer
) -> None:
    fake_chat_api.push(reply(text("done")))
    convo = [{"role": "user", "content": "go"},
             {"role": "assistant", "content": [
                 {"type": "text", "text": "checking"},
                 {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}}]},
             {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"},
                 {"type": "text", "text": "continue"}]}]
    tools = [TOOL, {**TOOL, "name": "bash"}]
    client(fake_chat_api).complete(request(messages=convo, tools=tools, tool_choice=None))
    sent = fake_chat_api.bodies[0]["messages"][1:]
    assert sent == [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "checking", "tool_calls": [
            {"id": "t1", "type": "function",
             "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "a.txt"},
        {"role": "user", "content": "continue"}]
    assert "tool_choice" not in fake_chat_api.bodies[0]


def test_arguments_that_are_not_a_json_object_are_kept_not_guessed(
    fake_chat_api: FakeChatServer
) -> None:
    broken = {"type": "tool_use", "id": "c", "name": "submit_verdict", "input": {},
              "raw_arguments": '{"decision": "pa'}
    fake_chat_api.push(reply(broken))
    response = client(fake_chat_api).complete(request())
    assert response.content[0]["input"] == {"_unparsed_arguments": '{"decision": "pa'}


def test_retries_are_counted_and_a_call_failing_for_good_says_so(
    fake_chat_api: FakeChatServer, tmp_path: Path
) -> None:
    fake_chat_api.push(http_error(429, retry_after=0), reply(text("ok")))
    assert client(fake_chat_api).complete(request()).usage.retries == 1

    fake_chat_api.push(*[http_error(503) for _ in range(4)])
    recorder = RecordingClient(client(fake_chat_api), tmp_path / "transcript.jsonl")
    with pytest.raises(ModelError, match=r"failed after 4 attempt\(s\) \(retries exhausted\)"):
        recorder.complete(request())
    assert recorder.usage.failed_calls == 1 and recorder.usage.retries == 3
    entries, _ = read_transcript(tmp_path / "transcript.jsonl")
    assert entries[0].attempts == 4 and entries[0].response is None


def test_a_body_that_is_not_a_completion_is_an_error(fake_chat_api: FakeChatServer) -> None:
    fake_chat_api.push(Malformed(b'{"id": "x", "choices": "nope"}'))
    with pytest.raises(ModelError, match="not with a chat completion"):
        client(fake_chat_api).complete(request())


def test_the_wall_deadline_cuts_attempts_and_retries(fake_chat_api: FakeChatServer) -> None:
    fake_chat_api.responder = lambda r: Slow(60)
    started = time.monotonic()
    with deadline.until(time.monotonic() + 1.5), pytest.raises(ModelError):
        client(fake_chat_api, timeout_s=30.0).complete(request())
    assert time.monotonic() - started < 1.5 + 3  # not 4 attempts x 30 s


def test_a_remote_server_needs_its_key() -> None:
    with pytest.raises(ModelError, match="OPENAI_API_KEY is not set"):
        OpenAIClient(base_url="https://api.openai.example/v1", api_key=None)
    assert chat_base_url("http://127.0.0.1:8080") == "http://127.0.0.1:8080/v1"
    assert chat_base_url("https://host/v1beta/openai/") == "https://host/v1beta/openai"


def test_model_prefixes_pick_the_provider() -> None:
    assert [(p.name, m) for p, m in map(split_model, [
        "openai:gpt-5.2", "gemini:gemini-3.1-pro", "anthropic:claude-sonnet-4-6",
        "claude-sonnet-4-6", "org:model"])] == [
        ("openai", "gpt-5.2"), ("gemini", "gemini-3.1-pro"),
        ("anthropic", "claude-sonnet-4-6"), ("anthropic", "claude-sonnet-4-6"),
        ("anthropic", "org:model")]
    with pytest.raises(ModelError, match="no model name"):
        split_model("openai:")


def test_one_client_routes_by_prefix_records_the_full_name_and_replays(
    fake_api: FakeMessagesServer, fake_chat_api: FakeChatServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    fake_api.push(reply(tool_use("submit_verdict", {"decision": "pass"})))
    fake_chat_api.push(reply(tool_use("submit_verdict", {"decision": "fail"})))
    live = make_client(base_url=fake_api.base_url, retry=FAST,
                       base_urls={"openai": fake_chat_api.base_url},
                       models=["anthropic:claude-x", "openai:gpt-test"])
    run = tmp_path / "run"
    recorder = RecordingClient(live, run / "case" / "transcript.jsonl")
    a = recorder.complete(request("anthropic:claude-x"))
    b = recorder.complete(request("openai:gpt-test"))
    assert fake_api.bodies[0]["model"] == "claude-x"  # prefix removed on the wire
    assert fake_chat_api.bodies[0]["model"] == "gpt-test"
    entries, _ = read_transcript(run / "case" / "transcript.jsonl")
    assert [e.request.model for e in entries] == ["anthropic:claude-x", "openai:gpt-test"]

    fake_api.stop()
    fake_chat_api.stop()
    replay = make_client(replay=run)
    assert replay.complete(request("anthropic:claude-x")).content == a.content
    assert replay.complete(request("openai:gpt-test")).content == b.content
    assert json.dumps(b.content) != json.dumps(a.content)


def test_unknown_provider_in_base_urls_is_refused() -> None:
    with pytest.raises(ModelError, match="unknown provider"):
        make_client(base_url="http://127.0.0.1:9", base_urls={"opnai": "http://127.0.0.1:9"})
