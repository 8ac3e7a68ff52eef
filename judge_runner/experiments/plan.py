"""The experiment plan: one TOML file naming the data, the judge rows, the comparisons, the
selection study, the budget and the limits. Validated by pydantic as it is read; an error names
the file, the line and the field.

Paths of data in a plan (dataset, bench, trials, tasks, skill, calibration) are relative to the
plan file's folder; `output` (default `runs`, where `eval` puts its runs) is relative to the
current directory, so `eval` and `experiment run` started from one folder share run
directories. `$VAR`, `${VAR}` and `${VAR:-default}` in a row's `base_url` and `base_urls` are
read from the environment (the plan fails when one without a default is not set), so a plan
can name a server started later.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    field_validator,
    model_validator,
)

from judge_runner.validation import message

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_VAR = re.compile(r"\$(\w+)|\$\{(\w+)(?::-([^}]*))?\}")


class PlanError(ValueError):
    """A plan that cannot be read or does not validate; the message names file, line, field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProviderLimit(_Strict):
    """How many cases calling this provider's models may be judged at the same time."""

    concurrency: int = Field(ge=1)


class Row(_Strict):
    """One judge configuration, judged over the plan's cases into its own run directory."""

    name: str
    title: str | None = None  # the row's name in the tables (default: name)
    judge: str
    model: str | None = None
    models: list[str] = Field(default_factory=list)
    skill: str | None = None  # a JudgeSkill directory, or "none"
    sandbox: str | None = None
    base_url: str | None = None
    allow_abstain: bool = False
    options: dict[str, JsonValue] = Field(default_factory=dict)  # the -o KEY=VALUE knobs
    # calibration file(s), as `eval --calibration` takes them (a cascade: one per stage)
    calibration: Path | list[Path] | None = None
    concurrency: int | None = Field(default=None, ge=1)  # at most this many of the row at once
    limit: int | None = Field(default=None, ge=1)  # judge only the first N cases of the split
    version: str | None = None  # a version row of the skill lineage (Table 4)
    select: bool = True  # take part in the selection study (Table 5)

    @field_validator("name")
    @classmethod
    def _a_name(cls, name: str) -> str:
        if not _NAME.match(name):
            raise ValueError("a row name is letters, digits, '.', '_' or '-' (no spaces), "
                             f"got {name!r}")
        return name

    @property
    def label(self) -> str:
        return self.title or self.name


class Comparison(_Strict):
    """A paired McNemar test between two rows (by name)."""

    a: str
    b: str


class Selection(_Strict):
    """The best-of-n selection study over the rows (`runs.select`)."""

    n_max: int = Field(default=10, ge=1)
    repeats: int = Field(default=8, ge=1)
    seed: int = 0


class AgentModel(_Strict):
    """The stated model of an agent judge's tokens when no finished case of the row exists:
    a session of `turns_low`..max_turns calls, the first seeing the system prompt and the case
    brief, each later one `growth_tokens` more (a tool result and the call that asked for it),
    never more than the context window; each call answers `output_low`..max_output_tokens."""

    turns_low: int = Field(default=6, ge=1)
    growth_tokens: int = Field(default=1500, ge=0)
    output_low: int = Field(default=150, ge=1)


class Plan(_Strict):
    name: str
    dataset: Path | None = None  # a dataset directory (with cases/)
    trials: list[Path] = Field(default_factory=list)  # or Harbor trial folders to import
    tasks: list[Path] = Field(default_factory=list)  # task folders for the import
    split: str | None = None  # eval | dev | gate (from bench) or a file of case ids; default all
    bench: Path | None = None
    output: Path = Path("runs")
    budget_usd: float | None = Field(default=None, gt=0)
    concurrency: int = Field(default=4, ge=1)
    limits: dict[str, ProviderLimit] = Field(default_factory=dict)
    rows: list[Row] = Field(min_length=1)
    comparisons: list[Comparison] = Field(default_factory=list)
    selection: Selection | None = None
    agent_estimate: AgentModel = Field(default_factory=AgentModel)
    source: Path = Path(".")  # the plan file (set by `load_plan`)

    @field_validator("name")
    @classmethod
    def _a_plan_name(cls, name: str) -> str:
        if not _NAME.match(name):
            raise ValueError("a plan name is letters, digits, '.', '_' or '-', got " + repr(name))
        return name

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if (self.dataset is None) == (not self.trials):
            raise ValueError("give either dataset (a dataset directory) or trials (Harbor "
                             "trial folders to import), not both and not neither")
        names = [r.name for r in self.rows]
        doubled = sorted({n for n in names if names.count(n) > 1})
        if doubled:
            raise ValueError(f"row names must be unique; repeated: {', '.join(doubled)}")
        for c in self.comparisons:
            unknown = [n for n in (c.a, c.b) if n not in names]
            if unknown:
                raise ValueError(f"comparison {c.a} vs {c.b} names no row {unknown[0]!r}; "
                                 f"rows: {', '.join(names)}")
        from judge_runner.models import PROVIDERS

        unknown_providers = sorted(set(self.limits) - set(PROVIDERS))
        if unknown_providers:
            raise ValueError(f"limits names unknown provider(s) {unknown_providers}; known: "
                             f"{', '.join(PROVIDERS)}")
        return self

    @property
    def folder(self) -> Path:
        return self.source.parent

    def path(self, value: Path) -> Path:
        """`value` as given in the plan, relative to the plan's folder."""
        return value if value.is_absolute() else self.folder / value

    @property
    def output_dir(self) -> Path:
        return self.output

    @property
    def experiment_dir(self) -> Path:
        """OUTPUT/experiment-<name>: run.json, the estimate and the report."""
        return self.output_dir / f"experiment-{self.name}"

    def row(self, name: str) -> Row:
        return next(r for r in self.rows if r.name == name)


def expand(value: str, where: str) -> str:
    """`$VAR`, `${VAR}` and `${VAR:-default}` from the environment; PlanError naming `where`
    when one without a default is unset."""

    def one(match: re.Match[str]) -> str:
        var, default = match.group(1) or match.group(2), match.group(3)
        if var not in os.environ and default is not None:
            return default
        if var not in os.environ:
            raise PlanError(f"{where}: environment variable {var} is not set")
        return os.environ[var]

    return _VAR.sub(one, value)


def load_plan(path: Path) -> Plan:
    """Read and validate a plan file; PlanError naming the file, the line and the field."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlanError(f"{path}: cannot read the plan: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{path}: not valid TOML: {exc}") from None
    try:
        return Plan.model_validate({**data, "source": path.resolve()})
    except ValidationError as exc:
        raise PlanError("\n".join(_located(path, text, data, error)
                                  for error in exc.errors())) from None


def _located(path: Path, text: str, data: dict[str, Any], error: Any) -> str:
    loc = tuple(error["loc"])
    field = _field_name(loc, data)
    line = find_line(text, loc)
    where = f"{path}:{line}" if line else str(path)
    return f"{where}: {field or 'plan'}: {message(error)}"


def _field_name(loc: tuple[Any, ...], data: dict[str, Any]) -> str:
    """rows[2].model reads better as rows.<name>.model when the row has a name."""
    parts: list[str] = []
    node: Any = data
    for key in loc:
        if isinstance(key, int) and isinstance(node, list) and key < len(node):
            item = node[key]
            name = item.get("name") if isinstance(item, dict) else None
            parts[-1] += f"[{key}]" + (f" ({name})" if isinstance(name, str) else "")
            node = item
        else:
            parts.append(str(key))
            node = node.get(key) if isinstance(node, dict) else None
    return ".".join(parts)


def find_line(text: str, loc: tuple[Any, ...]) -> int | None:
    """The 1-based line a validation error's location points at, read from the TOML text:
    the `key =` line inside the table or array-of-tables entry the location names, else that
    table's header line, else None (an error of the whole plan)."""
    lines = text.splitlines()
    headers: list[tuple[int, str, bool]] = []  # (index, dotted name, array of tables)
    for i, raw in enumerate(lines):
        s = raw.strip()
        m = re.match(r"^\[\[\s*([^\]]+?)\s*\]\]", s) or re.match(r"^\[\s*([^\]]+?)\s*\]", s)
        if m:
            headers.append((i, m.group(1).replace('"', ""), s.startswith("[[")))
    # Walk the location: the table prefix and, for arrays of tables, which entry.
    table: list[str] = []
    start, end = 0, len(lines)
    rest = list(loc)
    while rest:
        key = rest[0]
        if isinstance(key, int):
            name = ".".join(table)
            entries = [h for h in headers if h[1] == name and h[2]]
            if key >= len(entries):
                break
            start = entries[key][0]
            later = [h[0] for h in headers if h[0] > start]
            end = later[0] if later else len(lines)
            rest.pop(0)
            continue
        candidate = ".".join([*table, str(key)])
        block = [h for h in headers if h[1] == candidate and start <= h[0] < end]
        if block:
            table.append(str(key))
            start = block[0][0]
            later = [h[0] for h in headers if h[0] > start and not h[1].startswith(candidate + ".")]
            end = later[0] if later else len(lines)
            rest.pop(0)
            continue
        if any(h[1] == candidate and h[2] for h in headers):
            table.append(str(key))
            rest.pop(0)
            continue
        pattern = re.compile(rf'^\s*"?{re.escape(str(key))}"?\s*=')
        body = lines[start:end]
        for offset, raw in enumerate(body):
            if pattern.match(raw):
                return start + offset + 1
        break
    if table or start:
        return start + 1
    return None
