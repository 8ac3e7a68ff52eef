"""The agent judge end to end: real anthropic SDK → fake Messages API on 127.0.0.1, real
sandboxes (LocalSandbox always; DockerSandbox when an engine answers, required in CI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from judge_runner.cases import Dataset
from judge_runner.cli.judge_options import parse_skill
from judge_runner.core import Decision, Outcome
from judge_runner.judges.agent import AgentJudge, make_judge
from judge_runner.judges.llm import JudgeConfigError
from judge_runner.judges.products import (
    LOG_FILE,
    PLAN_FILE,
    TRANSCRIPT_FILE,
    VERDICT_FILE,
    read_log,
    read_verdict,
)
from judge_runner.judges.registry import NO_SKILL, JudgeOptions
from judge_runner.models.recording import read_transcript
from tests.conftest import REPO, docker_sdk
from tests.fakeapi import FakeMessagesServer, Slow, http_error, reply, text, tool_use
from tests.judges import sessions

V1 = REPO / "judgeskills" / "v1"
MAX_ATTEMPTS = 4
FAST_RETRY = {"initial_wait_s": 0.0, "jitter_s": 0.0, "max_wait_s": 0.0,
              "max_attempts": MAX_ATTEMPTS}


def options(api: FakeMessagesServer | None, sandbox: str = "local", skill: Path | None = V1,
            **extra: Any) -> JudgeOptions:
    return JudgeOptions(
        skill=skill if skill is not None else NO_SKILL, model="claude-test", sandbox=sandbox,
        base_url=api.base_url if api is not None else "http://127.0.0.1:9",
        extra={"retry": FAST_RETRY, "timeout_s": 1.0, **extra},
    )


def agent(api: FakeMessagesServer, sandbox: str = "local", **extra: Any) -> AgentJudge:
    return make_judge(options(api, sandbox, **extra))


@pytest.fixture(params=["local", "docker"])
def sandbox_kind(request: pytest.FixtureRequest) -> str:
    if request.param == "docker":
        request.getfixturevalue("docker_engine")
    return str(request.param)


# --- plan → inspections (real commands) → verdict, four files ------------------------------------

def test_scripted_session_writes_four_products_with_resolving_citations(
    fake_api: FakeMessagesServer, dataset: Dataset, sandbox_kind: str, tmp_path: Path
) -> None:
    fake_api.push(*sessions.good_session(41))
    out = tmp_path / "out"
    verdict = agent(fake_api, sandbox_kind).judge(dataset.case("c-fail"), out)

    assert verdict.decision == Decision.FAIL, verdict.error
    assert verdict.confidence == 0.9  # as stated in submit_verdict
    assert verdict.details["sandbox"] == {"kind": sandbox_kind,
                                          "isolated": sandbox_kind == "docker"}
    for name in (PLAN_FILE, LOG_FILE, VERDICT_FILE, TRANSCRIPT_FILE):
        assert (out / name).is_file(), name
    assert "## P1: out.json holds the right total (task-critical)" in (out / PLAN_FILE).read_text()
    log = read_log(out)
    assert [i.id for i in log] == ["I1", "I2"]
    assert log[0].outcome == Outcome.REFUTES
    assert set(verdict.citations) <= {i.id for i in log}
    assert not verdict.unsupported
    # evidence was machine-checked against the real command output
    assert all(ref.verified for i in log for ref in i.evidence)
    assert verdict.details["evidence"] == {"quotes": 2, "verified": 2}
    # the command really ran in the sandbox: its output went back to the model
    results = sessions.tool_results(fake_api.bodies[2])
    assert results and '{"total": 41}' in results[0]["content"]
    final = sessions.tool_results(fake_api.bodies[4])
    assert "Done: total is 41." in final[0]["content"]
    assert read_verdict(out) == verdict
    entries, problems = read_transcript(out / TRANSCRIPT_FILE)
    assert not problems and len(entries) == len(fake_api.bodies) == 6


def test_transcript_keeps_the_start_event_and_a_rerun_replaces_it(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    for _attempt in range(2):
        fake_api.push(*sessions.good_session(41))
        agent(fake_api).judge(dataset.case("c-fail"), out)
    lines = [json.loads(x) for x in (out / TRANSCRIPT_FILE).read_text().splitlines()]
    kinds = [(x["kind"], x.get("event")) for x in lines]
    assert kinds == [("judge_event", "start"), *[("model_call", None)] * 6,
                     ("judge_event", "end")]
    assert lines[0]["case_id"] == "c-fail" and "submit_verdict" in lines[0]["tools"]
    assert lines[-1]["decision"] == "fail"


def test_bundled_cases_plan_inspect_decide_with_one_prefix(
    fake_api: FakeMessagesServer, examples: Dataset, sandbox_kind: str, tmp_path: Path
) -> None:
    judge = agent(fake_api, sandbox_kind)
    chosen = [c for c in examples.cases()
              if c.trajectory.final_message and any(a.stored_as for a in c.meta.artifacts)][:2]
    assert len(chosen) == 2
    for case in chosen:
        stored = next(a.stored_as for a in case.meta.artifacts if a.stored_as)
        artifact_text = (case.artifacts_dir / stored).read_text()
        fake_api.push(*sessions.bundled_session(
            stored, artifact_text, case.trajectory.final_message or "", "fail"))
        out = tmp_path / case.id
        verdict = judge.judge(case, out)
        assert verdict.decision == Decision.FAIL, verdict.error
        for name in (PLAN_FILE, LOG_FILE, VERDICT_FILE, TRANSCRIPT_FILE):
            assert (out / name).is_file(), name
        log = read_log(out)
        assert [i.id for i in log] == ["I1", "I2", "I3"] == verdict.citations
        assert all(ref.verified for i in log for ref in i.evidence), log
    from tests.fakeapi import cacheable_prefix_bytes

    assert len({cacheable_prefix_bytes(b) for b in fake_api.bodies}) == 1


def test_read_file_pages_long_trajectories_without_silent_truncation(
    fake_api: FakeMessagesServer, tmp_path: Path
) -> None:
    from tests import casebuilder

    data = casebuilder.summing_dataset(tmp_path / "data", {"long": 41}, filler_steps=40)
    case = data.case("long")
    total = len((case.root / "trajectory.json").read_text())
    fake_api.push(sessions.plan())
    offset, pages = 0, 0
    while offset < total:
        fake_api.push(reply(tool_use("read_file", {"path": "/case/trajectory.json",
                                                   "offset": offset, "limit": 20000},
                                     id=f"tu_page{pages}")))
        offset += 20000
        pages += 1
    # the last page holds the last step (trajectory.json puts final_message before the steps)
    fake_api.push(sessions.inspection("P2", f"tu_page{pages - 1}", "filler line 39",
                                      "supports", "tu_rec"),
                  sessions.verdict("fail", ["I1"]))
    verdict = agent(fake_api).judge(case, tmp_path / "out")
    assert verdict.decision == Decision.FAIL, verdict.error
    assert pages >= 3
    seen = ""
    for body in fake_api.bodies[2 : 2 + pages]:
        content = sessions.tool_results(body)[0]["content"]
        header, _, fenced = content.partition("\n")
        assert f"of {total};" in header
        begin, _, rest = fenced.partition("\n")
        page, _, end = rest.rpartition("\n")
        assert begin.startswith(case.fence.begin) and end == case.fence.end
        seen += page
    assert seen == (case.root / "trajectory.json").read_text()
    assert "end of file" in sessions.tool_results(fake_api.bodies[1 + pages])[0]["content"]
    assert read_log(tmp_path / "out")[0].evidence[0].verified


# --- protocol violations -------------------------------------------------------------------------

def test_verdict_and_inspection_before_plan_are_refused(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(
        sessions.verdict("pass", [], call_id="tu_early_verdict"),
        sessions.inspection("P1", "tu_x", "x", "supports", "tu_early_rec"),
        *sessions.good_session(41),
    )
    verdict = agent(fake_api).judge(dataset.case("c-fail"), tmp_path / "out")
    assert verdict.decision == Decision.FAIL
    first = sessions.tool_results(fake_api.bodies[1])[0]
    assert first["is_error"] and "no inspections recorded" in first["content"]
    second = sessions.tool_results(fake_api.bodies[2])[0]
    assert second["is_error"] and "call write_plan first" in second["content"]
    assert verdict.details["violations"]["verdict_before_inspection"] == 1
    assert verdict.details["violations"]["inspection_before_plan"] == 1


@pytest.mark.parametrize(("second_citations", "unsupported"), [(["I2"], False), (["I7"], True)])
def test_uncited_verdict_gets_one_repair_turn(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path,
    second_citations: list[str], unsupported: bool,
) -> None:
    fake_api.push(sessions.plan(), *sessions.inspections(41),
                  sessions.verdict("fail", [], call_id="tu_v1"),
                  sessions.verdict("fail", second_citations, call_id="tu_v2"))
    verdict = agent(fake_api).judge(dataset.case("c-fail"), tmp_path / "out")
    repair = sessions.tool_results(fake_api.bodies[-1])[0]
    assert repair["is_error"] and "no citations" in repair["content"] and "I1" in repair["content"]
    assert verdict.decision == Decision.FAIL
    assert verdict.unsupported is unsupported
    assert verdict.citations == second_citations
    assert verdict.details["violations"]["uncited_verdict"] == 1


def test_unknown_tool_is_answered_with_an_error_and_counted(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(reply(tool_use("rm_rf", {"path": "/"}, id="tu_bad")), *sessions.good_session(41))
    verdict = agent(fake_api).judge(dataset.case("c-fail"), tmp_path / "out")
    result = sessions.tool_results(fake_api.bodies[1])[0]
    assert result["is_error"] and "unknown tool 'rm_rf'" in result["content"]
    assert verdict.decision == Decision.FAIL
    assert verdict.details["violations"]["unknown_tool"] == 1


def test_persistent_invalid_output_ends_as_error(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(*[reply(tool_use("write_plan", {"items": "nope"})) for _ in range(3)])
    verdict = agent(fake_api, max_invalid=2).judge(dataset.case("c-fail"), tmp_path / "out")
    assert verdict.decision == Decision.ERROR
    assert verdict.error is not None and verdict.error.startswith("unparseable output: 3 tool")


def test_text_only_answers_are_nudged_then_error(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(*[reply(text("It passes, trust me.")) for _ in range(3)])
    verdict = agent(fake_api, max_nudges=2).judge(dataset.case("c-pass"), tmp_path / "out")
    assert verdict.decision == Decision.ERROR
    assert "stopped calling tools 3 times" in (verdict.error or "")
    assert len(fake_api.bodies) == 3


def test_unverifiable_quote_is_recorded_unverified(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(sessions.plan(), sessions.bash("cat /case/artifacts/root/out.json", "tu_b"),
                  sessions.inspection("P1", "tu_b", '"total": 42', "supports", "tu_r"),
                  sessions.verdict("pass", ["I1"]))
    verdict = agent(fake_api).judge(dataset.case("c-fail"), tmp_path / "out")
    assert read_log(tmp_path / "out")[0].evidence[0].verified is False
    assert "NOT found" in sessions.tool_results(fake_api.bodies[3])[0]["content"]
    assert verdict.details["evidence"] == {"quotes": 1, "verified": 0}


def test_abstain_only_when_enabled(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    script = [sessions.plan(), *sessions.inspections(41)[:2], sessions.verdict("abstain", ["I1"])]
    fake_api.push(*script, sessions.verdict("fail", ["I1"], call_id="tu_v2"))
    refused = agent(fake_api).judge(dataset.case("c-fail"), tmp_path / "a")
    assert refused.decision == Decision.FAIL
    assert refused.details["violations"]["abstain_not_allowed"] == 1
    enum = fake_api.bodies[0]["tools"][-1]["input_schema"]["properties"]["decision"]["enum"]
    assert enum == ["pass", "fail"]
    fake_api.push(*script)
    judge = make_judge(options(fake_api).model_copy(update={"allow_abstain": True}))
    assert judge.judge(dataset.case("c-fail"), tmp_path / "b").decision == Decision.ABSTAIN


@pytest.mark.parametrize(
    ("extra", "reason"),
    [({"max_turns": 3}, "budget exhausted: 3 turns (limit 3)"),
     ({"max_total_tokens": 100}, "budget exhausted: "),
     ({"max_wall_s": 0.3}, "s wall time (limit 0.3s)")],
)
def test_budget_exhaustion_ends_as_error(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path,
    extra: dict[str, Any], reason: str,
) -> None:
    script = sessions.good_session(41)
    fake_api.push(Slow(0.4, then=script[0]), *script[1:])
    verdict = agent(fake_api, **extra).judge(dataset.case("c-fail"), tmp_path / "out")
    assert verdict.decision == Decision.ERROR
    assert reason in (verdict.error or "")
    assert (tmp_path / "out" / VERDICT_FILE).is_file()


def test_unreadable_case_is_an_error_not_a_verdict(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    case = dataset.case("c-fail")
    (case.root / "trajectory.json").write_text("{not json")
    verdict = agent(fake_api).judge(case, tmp_path / "out")
    assert verdict.decision == Decision.ERROR
    assert (verdict.error or "").startswith("case package unreadable")
    assert fake_api.bodies == []


def test_sandbox_dying_mid_session_is_an_error(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path, docker_engine: None
) -> None:
    def kill_containers() -> None:
        client = docker_sdk().from_env()
        for container in client.containers.list(filters={"label": "judge-runner.created"}):
            if "c-fail" in container.name:
                container.kill()
        client.close()

    killed: list[bool] = []

    def responder(request: Any) -> Any:
        if not killed:
            kill_containers()
            killed.append(True)
        return sessions.bash("cat /case/artifacts/root/out.json", "tu_after_kill")

    fake_api.push(sessions.plan())
    fake_api.responder = responder
    verdict = agent(fake_api, "docker").judge(dataset.case("c-fail"), tmp_path / "out")
    assert verdict.decision == Decision.ERROR
    assert (verdict.error or "").startswith("sandbox failed"), verdict.error


# --- retries, and persistent failure → error for that case only ----------------------------------

def test_transient_errors_are_retried(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    script = sessions.good_session(41)
    fake_api.push(http_error(429, retry_after=0), http_error(529), script[0],
                  http_error(500), Slow(2.0), *script[1:])
    verdict = agent(fake_api).judge(dataset.case("c-fail"), tmp_path / "out")
    assert verdict.decision == Decision.FAIL, verdict.error
    assert verdict.usage.retries == 4
    assert verdict.usage.calls == 6
    assert len(fake_api.bodies) == 10


def test_persistent_failure_is_an_error_for_that_case_only(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    judge = agent(fake_api)
    fake_api.push(*[http_error(500) for _ in range(MAX_ATTEMPTS)])
    broken = judge.judge(dataset.case("c-fail"), tmp_path / "a")
    fake_api.push(*sessions.good_session(42))
    fine = judge.judge(dataset.case("c-pass"), tmp_path / "b")
    assert broken.decision == Decision.ERROR
    assert "model call failed" in (broken.error or "") and "4 attempt" in (broken.error or "")
    assert fine.decision == Decision.PASS


# --- identical cacheable prefix; token sums match the server -------------------------------------

def test_prefix_identical_across_cases_and_usage_sums_match(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    from tests.fakeapi import cacheable_prefix_bytes

    judge = agent(fake_api)
    verdicts = []
    for case_id, total in (("c-fail", 41), ("c-pass", 42)):
        fake_api.push(*sessions.good_session(total))
        verdicts.append(judge.judge(dataset.case(case_id), tmp_path / case_id))
    prefixes = {cacheable_prefix_bytes(body) for body in fake_api.bodies}
    assert len(prefixes) == 1 and len(next(iter(prefixes))) > 10_000
    system_text = fake_api.bodies[0]["system"][0]["text"]
    assert "# JudgeSkill: skill-trajectory-judge (v1)" in system_text
    assert "c-fail" not in system_text and "c-pass" not in fake_api.bodies[6]["system"][0]["text"]
    # case content only in the first user message
    assert "c-pass" in json.dumps(fake_api.bodies[6]["messages"][0])
    # the server's usage fields, as recorded, sum to what the verdicts report
    for case_id, verdict in zip(("c-fail", "c-pass"), verdicts, strict=True):
        entries, _ = read_transcript(tmp_path / case_id / TRANSCRIPT_FILE)
        wire = [e.response.usage for e in entries if e.response is not None]
        for field in ("input_tokens", "cache_creation_input_tokens",
                      "cache_read_input_tokens", "output_tokens"):
            assert getattr(verdict.usage, field) == sum(getattr(u, field) for u in wire)
    # the second case reads the whole prefix from cache on its first call
    assert verdicts[1].usage.cache_creation_input_tokens == 0
    assert verdicts[1].usage.cache_read_input_tokens > 0


def test_usage_matches_explicit_server_usage(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    script = sessions.good_session(41)
    usages = [{"input_tokens": 10 + i, "output_tokens": 5 + i,
               "cache_creation_input_tokens": 100 if i == 0 else 0,
               "cache_read_input_tokens": 0 if i == 0 else 100} for i in range(len(script))]
    fake_api.push(*[reply(*r.content, usage=u) for r, u in zip(script, usages, strict=True)])
    verdict = agent(fake_api).judge(dataset.case("c-fail"), tmp_path / "out")
    assert verdict.usage.input_tokens == sum(u["input_tokens"] for u in usages)
    assert verdict.usage.output_tokens == sum(u["output_tokens"] for u in usages)
    assert verdict.usage.cache_creation_input_tokens == 100
    assert verdict.usage.cache_read_input_tokens == 100 * (len(script) - 1)


# --- replay with the server switched off ---------------------------------------------------------

def test_replay_reproduces_verdicts_with_server_off(
    dataset: Dataset, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    server = FakeMessagesServer().start()
    judge = agent(server)
    live = {}
    for case_id, total in (("c-fail", 41), ("c-pass", 42)):
        server.push(*sessions.good_session(total))
        live[case_id] = judge.judge(dataset.case(case_id), run / case_id)
    server.stop()

    replayer = make_judge(options(None).model_copy(update={"replay": run}))
    for case_id, verdict in live.items():
        again = replayer.judge(dataset.case(case_id), tmp_path / "replay" / case_id)
        assert again.decision == verdict.decision != Decision.ERROR
        assert again.model_dump(exclude={"duration_s"}) == verdict.model_dump(
            exclude={"duration_s"})
        for name in (PLAN_FILE, LOG_FILE):
            assert (tmp_path / "replay" / case_id / name).read_bytes() == (
                run / case_id / name).read_bytes()


def test_agent_without_skill_uses_base_prompt_only(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(*sessions.good_session(42))
    judge = make_judge(options(fake_api, skill=None))
    verdict = judge.judge(dataset.case("c-pass"), tmp_path / "out")
    assert verdict.decision == Decision.PASS
    assert verdict.judge == "agent-noskill"
    system = fake_api.bodies[0]["system"][0]["text"]
    assert "JudgeSkill" not in system and "write_plan" in system
    assert judge.config()["skill"] is None


def test_config_names_the_sandbox_asked_for_and_verdicts_the_one_used(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    from judge_runner.runs.store import config_hash

    local, auto = agent(fake_api, "local"), agent(fake_api, "auto")
    assert local.config()["sandbox"] == "local" and auto.config()["sandbox"] == "auto"
    assert config_hash(local.name, local.config()) != config_hash(auto.name, auto.config())
    fake_api.push(*sessions.good_session(41))
    verdict = local.judge(dataset.case("c-fail"), tmp_path / "out")
    assert verdict.details["sandbox"] == {"kind": "local", "isolated": False}
    assert read_verdict(tmp_path / "out").details["sandbox"]["isolated"] is False


def test_no_skill_must_be_said_explicitly() -> None:
    with pytest.raises(JudgeConfigError, match="needs --skill DIR"):
        make_judge(JudgeOptions(model="m", sandbox="local"))
    # `none` exactly is the choice; `./none` is a directory (here a missing one), never the choice.
    assert parse_skill("none") is NO_SKILL and parse_skill("./none") == Path("none")
    with pytest.raises(JudgeConfigError, match="none"):
        make_judge(JudgeOptions(model="m", sandbox="local", skill=parse_skill("./none")))


def test_command_problems_are_tool_errors_not_session_errors(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(
        sessions.plan(),
        reply(tool_use("read_file", {"path": "/case/missing.txt"}, id="tu_missing")),
        reply(tool_use("bash", {"command": "sleep 5", "timeout_s": 0.5}, id="tu_slow")),
        reply(tool_use("bash", {"command": "exit 3"}, id="tu_exit")),
        *sessions.inspections(41), sessions.verdict("fail", ["I1"]),
    )
    verdict = agent(fake_api).judge(dataset.case("c-fail"), tmp_path / "out")
    assert verdict.decision == Decision.FAIL, verdict.error
    missing = sessions.tool_results(fake_api.bodies[2])[0]
    assert missing["is_error"] and "cannot read /case/missing.txt" in missing["content"]
    slow, failed = (sessions.tool_results(fake_api.bodies[i])[0]["content"].split("\n", 1)[1]
                    for i in (3, 4))  # after the line that opens the case's fence
    assert slow.startswith("timed out after 0.5s") and failed.startswith("exit code 3")


def test_sandbox_that_cannot_open_is_an_error(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    with pytest.raises(ValidationError, match="bogus"):  # an unknown kind never builds a judge
        agent(fake_api, "bogus")
    # A Harbor trial's sandbox cannot open outside a trial: every case says so, nothing is paid.
    verdict = agent(fake_api, "harbor").judge(dataset.case("c-fail"), tmp_path / "out")
    assert verdict.decision == Decision.ERROR
    assert (verdict.error or "").startswith("sandbox could not be opened: ")
    assert "harbor" in (verdict.error or "")
    assert fake_api.bodies == []


def test_agent_needs_a_sandbox_and_known_knobs(fake_api: FakeMessagesServer) -> None:
    from judge_runner.judges.llm import JudgeConfigError

    with pytest.raises(JudgeConfigError, match="inspects cases in a sandbox"):
        agent(fake_api, "none")
    with pytest.raises(JudgeConfigError, match="max_turn"):
        agent(fake_api, max_turn=3)
    with pytest.raises(JudgeConfigError, match="bad budget"):
        agent(fake_api, max_turns=0)


def test_read_file_pages_a_file_larger_than_the_sandbox_read_limit(
    dataset: Dataset, tmp_path: Path
) -> None:
    from judge_runner.judges.agent.session import READ_CAP_BYTES, Session
    from judge_runner.sandbox import SandboxLimits
    from judge_runner.sandbox.local import LocalSandbox

    case = dataset.case("c-pass")
    line = "0123456789abcdef é\n"  # 20 bytes, 19 characters
    big = line * (READ_CAP_BYTES // 20 + 1000)
    (case.root / "big.txt").write_text(big)
    size = len(big.encode())

    def read(session: Session, path: str, offset: int = 0, limit: int = 100) -> tuple[str, bool]:
        result = session.handle({"type": "tool_use", "id": f"r{offset}", "name": "read_file",
                                 "input": {"path": path, "offset": offset, "limit": limit}})
        return result.content, result.is_error

    with LocalSandbox(case.root, limits=SandboxLimits(max_read_bytes=4096)) as sandbox:
        session = Session(sandbox=sandbox, allow_abstain=False)
        content, is_error = read(session, "/case/big.txt")
        header, _, page = content.partition("\n")
        assert not is_error and page == big[:100]
        assert header.startswith("[/case/big.txt: characters 0-100 of more than ")
        assert f"(the file has {size} bytes); next offset 100]" in header
        content, is_error = read(session, "/case/big.txt", 1_000_000, 60_000)
        assert not is_error and content.partition("\n")[2] == big[1_000_000:1_060_000]
        content, is_error = read(session, "/case/big.txt", READ_CAP_BYTES, 10)
        assert is_error and f"the file has {size} bytes" in content and "bash" in content
        content, is_error = read(session, "/case/instruction.md", 0, 20_000)
        assert not is_error and content.partition("\n")[0].endswith("; end of file]")
