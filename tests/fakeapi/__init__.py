"""Fake model API servers on 127.0.0.1 for tests (real HTTP, scripted per test): Anthropic's
Messages API (`fake_api`) and OpenAI's Chat Completions (`fake_chat_api`, same scripting).

Use the `fake_api` fixture (registered suite-wide by `tests/conftest.py`) and script it:

    fake_api.push(reply(tool_use("write_plan", {...})), http_error(429, retry_after=0))
    fake_api.responder = lambda req: reply(text("ok"))   # react to the request instead

Only `stream: false` is spoken: a request with `stream: true` gets a 400 naming the limitation.
Every request body the server receives is kept on the server (`fake_api.requests`) and in the
session-wide `ALL_REQUESTS` list, so suite-level tests can scan everything sent to a model.
"""

from tests.fakeapi.server import (
    ALL_REQUESTS,
    Drop,
    FakeChatServer,
    FakeMessagesServer,
    HttpError,
    Malformed,
    ReceivedRequest,
    Reply,
    Slow,
    cacheable_prefix_bytes,
    http_error,
    reply,
    text,
    tool_use,
)

__all__ = [
    "ALL_REQUESTS",
    "Drop",
    "FakeChatServer",
    "FakeMessagesServer",
    "HttpError",
    "Malformed",
    "ReceivedRequest",
    "Reply",
    "Slow",
    "cacheable_prefix_bytes",
    "http_error",
    "reply",
    "text",
    "tool_use",
]
