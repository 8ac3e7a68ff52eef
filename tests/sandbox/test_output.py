"""CappedStream: head and tail kept, the cut counted exactly, whatever the chunking."""

from __future__ import annotations

import pytest

from judge_runner.sandbox.output import CappedStream, cut_marker


@pytest.mark.parametrize("chunk", [1, 7, 100, 5000])
def test_head_tail_and_exact_cut_count(chunk: int) -> None:
    data = bytes(range(256)) * 40  # 10240 bytes
    stream = CappedStream(1000)
    for i in range(0, len(data), chunk):
        stream.feed(data[i:i + chunk])
    assert stream.total == len(data) and stream.cut == len(data) - 1000
    assert stream.value() == data[:500] + cut_marker(len(data) - 1000) + data[-500:]


def test_output_under_the_cap_is_untouched() -> None:
    stream = CappedStream(1000)
    for part in (b"a" * 600, b"b" * 400):
        stream.feed(part)
    assert not stream.truncated and stream.value() == b"a" * 600 + b"b" * 400


def test_invalid_utf8_is_replaced_not_raised() -> None:
    stream = CappedStream(1024)
    stream.feed(b"ok \xff\xfe")
    assert stream.text() == "ok \ufffd\ufffd"
