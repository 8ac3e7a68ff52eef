"""Plan files: validated as they are read, errors naming the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.experiments import PlanError, load_plan, prepare
from judge_runner.experiments.rows import check_row, row_options
from judge_runner.judges import NO_SKILL, JudgeOptions
from judge_runner.sandbox import SandboxKind
from tests.conftest import REPO

PLANS = REPO / "bench" / "plans"
GOOD = """name = "p"
dataset = "data"

[[rows]]
name = "a"
judge = "rules"

[[rows]]
name = "b"
judge = "direct"
model = "openai:gpt-5.2"
options = { max_output_tokens = 100 }
"""


def _write(tmp: Path, text: str) -> Path:
    path = tmp / "plan.toml"
    path.write_text(text)
    return path


def _error(tmp: Path, text: str) -> str:
    with pytest.raises(PlanError) as caught:
        load_plan(_write(tmp, text))
    return str(caught.value)


def test_a_good_plan_reads_with_paths_from_its_folder(tmp_path: Path) -> None:
    plan = load_plan(_write(tmp_path, GOOD))
    assert [r.name for r in plan.rows] == ["a", "b"]
    assert plan.path(plan.dataset or Path()) == tmp_path / "data"
    assert plan.output_dir == Path("runs") and plan.experiment_dir == Path("runs/experiment-p")


def test_an_unknown_field_names_file_line_and_field(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace('model = "openai:gpt-5.2"',
                                            'model = "openai:gpt-5.2"\nmodle = "x"'))
    assert f"{tmp_path / 'plan.toml'}:12: rows[1] (b).modle: unknown field" in message


def test_a_bad_value_names_its_line(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace('name = "p"\n', 'name = "p"\nconcurrency = 0\n'))
    assert "plan.toml:2: concurrency: Input should be greater than or equal to 1" in message
    message = _error(tmp_path, GOOD.replace('judge = "rules"', 'judge = 3'))
    assert "plan.toml:6: rows[0] (a).judge: Input should be a valid string" in message


def test_a_missing_field_names_the_table(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace('judge = "rules"\n', ""))
    assert "plan.toml:4: rows[0] (a).judge: Field required" in message


def test_whole_plan_problems(tmp_path: Path) -> None:
    assert "give either dataset" in _error(tmp_path, GOOD.replace('dataset = "data"\n', ""))
    doubled = GOOD.replace('name = "b"', 'name = "a"')
    assert "row names must be unique; repeated: a" in _error(tmp_path, doubled)
    pair = GOOD + '\n[[comparisons]]\na = "a"\nb = "c"\n'
    assert "names no row 'c'" in _error(tmp_path, pair)
    limits = GOOD + "\n[limits.mistral]\nconcurrency = 1\n"
    assert "unknown provider(s) ['mistral']" in _error(tmp_path, limits)
    assert "not valid TOML" in _error(tmp_path, "name = \n")
    with pytest.raises(PlanError, match="cannot read the plan"):
        load_plan(tmp_path / "no")


def test_row_options_are_the_eval_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVER", "http://127.0.0.1:1234")
    text = GOOD.replace('options = { max_output_tokens = 100 }',
                        'base_url = "${SERVER}"\nskill = "none"\nsandbox = "docker"\n'
                        'options = { max_output_tokens = 100, '
                        'base_urls = { openai = "$SERVER" } }')
    plan = load_plan(_write(tmp_path, text))
    options = row_options(plan, plan.row("b"))
    assert options == JudgeOptions(
        model="openai:gpt-5.2", base_url="http://127.0.0.1:1234", skill=NO_SKILL,
        sandbox=SandboxKind.DOCKER,
        extra={"max_output_tokens": 100, "base_urls": {"openai": "http://127.0.0.1:1234"}})
    monkeypatch.delenv("SERVER")
    with pytest.raises(PlanError, match=r"rows.b.options.base_urls: environment variable SERVER "):
        row_options(plan, plan.row("b"))
    defaulted = load_plan(_write(tmp_path, GOOD.replace(
        'options =', 'base_url = "${SERVER:-http://127.0.0.1:9}"\noptions =')))
    assert row_options(defaulted, defaulted.row("b")).base_url == "http://127.0.0.1:9"


def test_options_a_judge_would_not_use_are_refused_before_anything_runs(tmp_path: Path) -> None:
    plan = load_plan(_write(tmp_path, GOOD.replace("max_output_tokens = 100", "max_turns = 3")))
    with pytest.raises(PlanError,
                       match=r"rows.b: -o max_turns: unknown option\(s\) for the direct judge"):
        check_row(plan, plan.row("b"))
    bad_sandbox = load_plan(_write(tmp_path, GOOD.replace('judge = "rules"',
                                                          'judge = "rules"\nsandbox = "vm"')))
    with pytest.raises(PlanError, match=r"rows.a.sandbox: unknown sandbox kind 'vm'"):
        row_options(bad_sandbox, bad_sandbox.row("a"))


def test_calibration_files_are_checked_and_passed_as_eval_passes_them(tmp_path: Path) -> None:
    plan = load_plan(_write(tmp_path, GOOD.replace('judge = "rules"',
                                                   'judge = "rules"\ncalibration = "cal.json"')))
    with pytest.raises(PlanError, match=r"rows.a.calibration: .*cal.json is not a file"):
        row_options(plan, plan.row("a"))
    (tmp_path / "cal.json").write_text("{}")
    assert row_options(plan, plan.row("a")).calibration == [tmp_path / "cal.json"]


@pytest.mark.parametrize("name", ["skilltv.toml", "offline.toml"])
def test_the_bundled_plans_validate_and_their_rows_fit_their_judges(name: str) -> None:
    plan = load_plan(PLANS / name)
    for row in plan.rows:
        check_row(plan, row)
    if name == "skilltv.toml":
        assert {r.judge for r in plan.rows} == {"direct", "multi", "rubric", "agent"}
        assert [r.version for r in plan.rows if r.version] == ["v1", "v2"]
        models = {m for r in plan.rows for m in [r.model, *r.models] if m}
        assert {m.split(":")[0] for m in models} == {"openai", "anthropic", "gemini"}


def test_estimating_a_plan_with_unbuildable_rows_still_estimates(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    """No key for a remote provider: the row has no run directory, but is estimated."""
    from tests.casebuilder import answer_dataset, mixed_answers

    answer_dataset(tmp_path / "data", mixed_answers(3))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    study = prepare(load_plan(_write(tmp_path, GOOD)), build=False)
    row = study.row("b")
    assert row.judge is None and row.run_dir is None and "OPENAI_API_KEY" in (row.note or "")
    with pytest.raises(PlanError, match="OPENAI_API_KEY"):
        prepare(load_plan(_write(tmp_path, GOOD)), build=True)
