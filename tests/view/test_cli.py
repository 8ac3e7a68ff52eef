"""`judge-runner view` on the command line, and `--serve` answering on 127.0.0.1."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.cli import app
from judge_runner.runs.runner import RunResult


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
    cmd = [sys.executable, "-m", "judge_runner.cli", "view", str(citing.run_dir), "--serve",
           "--port", "0"]
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline(), process.stdout.readline()]
        serving = next((ln for ln in lines if ln.startswith("serving ")), "")
        url = serving.split(" at ")[1].split(" ")[0]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/index\.html", url), lines
        with urllib.request.urlopen(url, timeout=30) as response:
            body = response.read().decode("utf-8")
        assert response.status == 200 and 'id="case-table"' in body
        case_url = url.replace("index.html", "cases/case-0.html")
        with urllib.request.urlopen(case_url, timeout=30) as response:
            assert 'id="step-1"' in response.read().decode("utf-8")
    finally:
        os.kill(process.pid, signal.SIGINT)
        process.wait(timeout=30)
