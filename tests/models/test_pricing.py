"""Price table: bundled prices, prefix lookup, file overrides, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_runner.models import PriceFileError, price_table
from judge_runner.models.pricing import PRICES_ENV, bundled_prices, load_price_file


def test_bundled_table_prices_dated_snapshots_by_base_name() -> None:
    table = bundled_prices()
    exact = table.lookup("claude-sonnet-4-5")
    assert exact is not None
    assert table.lookup("claude-sonnet-4-5-20250929") == exact
    assert table.lookup("claude-opus-4-1-20250805") == table.models["claude-opus-4-1"]
    assert table.lookup("claude-opus-4-20250514") == table.models["claude-opus-4"]
    assert table.lookup("claude-opus-4-6-latest") == table.models["claude-opus-4-6"]
    # An unknown newer model does not inherit an older family member's price.
    assert table.lookup("claude-opus-4-9") is None
    assert table.lookup("some-local-model") is None


def test_cost_uses_all_four_token_kinds() -> None:
    table = bundled_prices()
    price = table.models["claude-sonnet-4-5"]
    cost = table.cost("claude-sonnet-4-5", input_tokens=1_000_000,
                      cache_creation_input_tokens=1_000_000, cache_read_input_tokens=1_000_000,
                      output_tokens=1_000_000)
    assert cost == pytest.approx(price.input + price.cache_write + price.cache_read + price.output)
    assert table.cost("unpriced-model", input_tokens=10, cache_creation_input_tokens=0,
                      cache_read_input_tokens=0, output_tokens=10) == 0.0


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_price_file_overrides_and_extends(tmp_path: Path, suffix: str) -> None:
    entries: dict[str, dict[str, float]] = {
        "claude-sonnet-4-5": {"input": 1, "cache_write": 2, "cache_read": 3, "output": 4},
        "local-model": {"input": 0.5, "cache_write": 0, "cache_read": 0, "output": 1}}
    path = tmp_path / f"prices{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps({"models": entries}))
    else:
        path.write_text("".join(
            f'[models."{name}"]\n' + "".join(f"{k} = {v}\n" for k, v in fields.items())
            for name, fields in entries.items()))

    table = price_table(path)

    assert table.models["claude-sonnet-4-5"].output == 4
    assert table.models["local-model"].input == 0.5
    assert "claude-haiku-4-5" in table.models  # bundled entries stay


def test_price_file_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"models": {"env-model": {"input": 1, "cache_write": 1,
                                                         "cache_read": 1, "output": 1}}}))
    monkeypatch.setenv(PRICES_ENV, str(path))
    assert price_table().lookup("env-model") is not None


def test_bad_price_files_name_the_file_and_the_problem(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    with pytest.raises(PriceFileError, match=r"missing\.toml: cannot read"):
        load_price_file(missing)
    negative = tmp_path / "neg.json"
    negative.write_text(json.dumps({"models": {"m": {"input": -1, "cache_write": 0,
                                                     "cache_read": 0, "output": 0}}}))
    with pytest.raises(PriceFileError, match=r"(?s)neg\.json.*greater than or equal to 0"):
        load_price_file(negative)
    typo = tmp_path / "typo.toml"
    typo.write_text('[models."m"]\ninput = 1\ncache_write = 1\ncache_read = 1\nouptut = 1\n')
    with pytest.raises(PriceFileError, match=r"(?s)typo\.toml.*ouptut"):
        load_price_file(typo)
