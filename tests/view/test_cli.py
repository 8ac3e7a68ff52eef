"""`judge-runner view` on the command line, and `--serve` answering on 127.0.0.1."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.cases import Dataset
from judge_runner.cli import app
from judge_runner.runs import STORE_FILE
from judge_runner.runs.runner import RunResult
from tests.view.runs import CitingJudge, citing_run
from tests.view.serving import get, serving


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_view_writes_the_pages_and_prints_where(citing: RunResult) -> None:
    code, output = invoke("view", str(citing.run_dir))
    assert code == 0, output
    assert f"view: {citing.run_dir / 'view' / 'index.html'}" in output
    assert (citing.run_dir / "view" / "cases" / "case-0.html").is_file()


def test_bad_arguments_are_refused_with_a_reason(citing: RunResult, tmp_path: Path) -> None:
    run = str(citing.run_dir)
    for args, message in (
        ((run, run, run), "one run directory or two"),
        ((str(tmp_path / "nope"),), "is not a directory"),
        ((str(tmp_path),), "verdicts.jsonl not found"),
        ((run, "--out", str(tmp_path / "x.html")), "--out is for the side-by-side page"),
    ):
        code, output = invoke("view", *args)
        assert code == 2, (args, output)
        assert message in output, (args, output)


def test_serve_answers_on_loopback(citing: RunResult) -> None:
    with serving(str(citing.run_dir)) as url:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/index\.html", url), url
        status, body = get(url)
        assert status == 200 and 'id="case-table"' in body.decode("utf-8")
        status, body = get(url.replace("index.html", "cases/case-0.html"))
        assert status == 200 and 'id="step-1"' in body.decode("utf-8")


def test_serve_answers_only_with_the_pages_it_wrote(hostile: Dataset, tmp_path: Path) -> None:
    """Two runs under one project folder, the compare page beside it: the key file, the run
    store, the labels and the folders next to the pages are not served, nor any folder listed,
    nor anything to a request naming another host."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (home / ".env").write_text("TOKEN=secret\n")
    run_a = citing_run(hostile, home / "proj" / "runs" / "a").run_dir
    run_b = citing_run(hostile, home / "proj" / "runs" / "b", CitingJudge("b")).run_dir
    compare = home / "compare.html"
    with serving(str(run_a), str(run_b), "--out", str(compare)) as url:
        base = url.rsplit("/", 1)[0]
        assert url == f"{base}/compare.html"
        assert get(url)[0] == 200
        for page in ("proj/runs/a/view/index.html", "proj/runs/b/view/cases/case-0.html",
                     "proj/runs/a/view/assets/view.css"):
            assert get(f"{base}/{page}")[0] == 200, page
        for secret in (".ssh/id_rsa", ".env", f"proj/runs/a/{STORE_FILE}",
                       "proj/runs/a/verdicts.jsonl", "proj/runs/a/cases/case-0/verdict.json",
                       f"proj/runs/a/view/../{STORE_FILE}", "proj/runs/a/view/%2e%2e/.env",
                       "proj/runs/a/view/", "proj/runs/a/view/cases/", "", "proj/"):
            status, body = get(f"{base}/{secret}")
            assert status == 404, (secret, status)
            assert b"PRIVATE KEY" not in body and b"secret" not in body
        for host in ("evil.example", "evil.example:80", "127.0.0.1.evil.example",
                     f"attacker.test:{base.rsplit(':', 1)[1]}"):
            assert get(url, host=host)[0] == 403, host
        for host in ("localhost", f"localhost:{base.rsplit(':', 1)[1]}", "127.0.0.1"):
            assert get(url, host=host)[0] == 200, host
