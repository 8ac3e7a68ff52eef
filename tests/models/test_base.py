"""Usage arithmetic: sums and token totals."""

from __future__ import annotations

from judge_runner.models import Usage


def test_token_totals_count_cache_traffic_as_prompt_tokens() -> None:
    a = Usage(input_tokens=10, cache_creation_input_tokens=200, cache_read_input_tokens=3000,
              output_tokens=4, calls=1)
    b = Usage(input_tokens=1, output_tokens=2, calls=1)
    total = a + b
    assert (a.prompt_tokens, a.total_tokens) == (3210, 3214)
    assert (total.prompt_tokens, total.total_tokens, total.calls) == (3211, 3217, 2)
    assert "total_tokens" not in a.model_dump()  # derived, never stored
