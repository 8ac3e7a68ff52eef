"""Price table: USD per million tokens, per model, for the four token kinds the API bills.

The bundled table (`prices.toml`) can be extended or overridden by a TOML or JSON file of the same
shape (`{"models": {"<name>": {"input": .., "cache_write": .., "cache_read": .., "output": ..}}}`);
entries in the file replace bundled entries of the same name.

A model without a price is not an error (local servers serve arbitrary names): its cost is 0 and
`PriceTable.lookup` returns None so callers can say so; `cost` logs one warning per model.
"""

from __future__ import annotations

import json
import os
import re
import threading
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge_runner.log import get_logger

PRICES_ENV = "JUDGE_RUNNER_PRICES"
_SNAPSHOT = re.compile(r"-(\d{8}|latest)$")
_MTOK = 1_000_000

log = get_logger(__name__)


class ModelPrice(BaseModel):
    """USD per million tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)
    cache_write: float = Field(ge=0)
    cache_read: float = Field(ge=0)
    output: float = Field(ge=0)


class PriceFileError(ValueError):
    """A price file could not be read or does not have the expected shape."""


class PriceTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    models: dict[str, ModelPrice] = Field(default_factory=dict)

    def lookup(self, model: str) -> ModelPrice | None:
        """The entry for `model`, or for its base name when `model` is a dated snapshot
        ("<name>-20250929") or "<name>-latest"; None if unpriced. No looser matching: a new
        model must not silently inherit an older model's price."""
        if model in self.models:
            return self.models[model]
        snapshot = _SNAPSHOT.search(model)
        return self.models.get(model[: snapshot.start()]) if snapshot else None

    def cost(self, model: str, *, input_tokens: int, cache_creation_input_tokens: int,
             cache_read_input_tokens: int, output_tokens: int) -> float:
        """USD for one call; 0.0 (with a one-time warning) when the model has no price."""
        price = self.lookup(model)
        if price is None:
            _warn_unpriced(model)
            return 0.0
        return (
            input_tokens * price.input
            + cache_creation_input_tokens * price.cache_write
            + cache_read_input_tokens * price.cache_read
            + output_tokens * price.output
        ) / _MTOK

    def merged(self, other: PriceTable) -> PriceTable:
        return PriceTable(models={**self.models, **other.models})


_warned: set[str] = set()
_warned_lock = threading.Lock()


def _warn_unpriced(model: str) -> None:
    with _warned_lock:
        if model in _warned:
            return
        _warned.add(model)
    log.warning("model has no price; its cost is counted as 0", model=model,
                hint=f"add it to a price file named by {PRICES_ENV}")


def _parse(text: str, source: str, is_json: bool) -> PriceTable:
    try:
        data: Any = json.loads(text) if is_json else tomllib.loads(text)
        return PriceTable.model_validate(data)
    except (ValueError, ValidationError) as err:  # JSONDecodeError/TOMLDecodeError are ValueError
        raise PriceFileError(f"{source}: not a valid price table: {err}") from err


def bundled_prices() -> PriceTable:
    text = resources.files("judge_runner.models").joinpath("prices.toml").read_text("utf-8")
    return _parse(text, "bundled prices.toml", is_json=False)


def load_price_file(path: Path) -> PriceTable:
    """Read a TOML or JSON price file (by suffix; .json is JSON, anything else TOML).

    Raises PriceFileError naming the file when it is missing or malformed.
    """
    try:
        text = path.read_text("utf-8")
    except OSError as err:
        raise PriceFileError(f"{path}: cannot read price file: {err.strerror}") from err
    return _parse(text, str(path), is_json=path.suffix.lower() == ".json")


def price_table(override: Path | None = None) -> PriceTable:
    """The bundled table extended by `override`, or else by the file in $JUDGE_RUNNER_PRICES."""
    table = bundled_prices()
    env_file = os.environ.get(PRICES_ENV)
    path = override if override is not None else (Path(env_file) if env_file else None)
    return table.merged(load_price_file(path)) if path is not None else table
