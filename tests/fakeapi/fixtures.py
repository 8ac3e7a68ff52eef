"""pytest plugin: the `fake_api` fixture (a fresh fake Messages API server per test)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakeapi.server import FakeChatServer, FakeMessagesServer


@pytest.fixture
def fake_api() -> Iterator[FakeMessagesServer]:
    """A running fake Messages API on 127.0.0.1; stopped (and slow answers cut short) after."""
    server = FakeMessagesServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_chat_api() -> Iterator[FakeChatServer]:
    """A running fake OpenAI-compatible Chat Completions API on 127.0.0.1."""
    server = FakeChatServer().start()
    try:
        yield server
    finally:
        server.stop()
