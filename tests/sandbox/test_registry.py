"""The sandbox registry: kinds register their opener once; choices are not kinds."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.sandbox import (
    Sandbox,
    SandboxError,
    SandboxKind,
    SandboxRequest,
    open_sandbox,
    sandbox_kind,
)
from judge_runner.sandbox.registry import opener


def _never(request: SandboxRequest) -> Sandbox:
    raise AssertionError("not opened")


def test_choices_and_second_registrations_are_refused() -> None:
    with pytest.raises(ValueError, match="a choice, not a sandbox kind"):
        sandbox_kind(SandboxKind.AUTO)(_never)
    opener(SandboxKind.LOCAL)  # loads the local module, which registers the kind
    with pytest.raises(ValueError, match="registered twice"):
        sandbox_kind(SandboxKind.LOCAL)(_never)


def test_a_kind_opens_through_its_registered_opener(tmp_path: Path) -> None:
    case = tmp_path / "cases" / "c1"
    case.mkdir(parents=True)
    (case / "case.json").write_text("{}")
    with open_sandbox("local", case) as box:
        assert box.kind is SandboxKind.LOCAL and not box.isolated
    with pytest.raises(SandboxError, match="opens no sandbox"):
        open_sandbox(SandboxKind.NONE, case)
