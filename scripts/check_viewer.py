"""Check the audit viewer end to end in headless Chromium and take screenshots.

    .venv/bin/python scripts/check_viewer.py [--out out/view-check] [--sandbox local]

1. Imports the bundled examples and judges them with the rules judge (`judge-runner eval`), with
   the agent judge against the scripted Messages server (one quote per case is not in the
   output it cites, so it is stored unverified; every case is failed, so some are misjudged),
   and with the checklist judge (checklists from the scripted synthesizer, items from the
   scripted item judge, both answering only from their requests).
2. Writes the pages with `judge-runner view` for each run and for the two side by side.
3. Loads every index, case and compare page in Chromium: no console error, no failed request,
   no request leaving the machine, and every citation link (`a.cite`) lands on an element of
   its page. Asserts that misjudged cases and unverified quotes are marked in the DOM, and that
   every case page of the checklist run shows its checklist with citation links.
4. Saves screenshots under OUT/screenshots/.

Exits 1 naming every failure.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judge_runner.cases import Dataset  # noqa: E402
from judge_runner.log import configure  # noqa: E402
from tests.fakeapi import FakeMessagesServer  # noqa: E402
from tests.view.browser import Browser, browser, playwright_missing  # noqa: E402
from tests.view.runs import agent_run, checklist_run  # noqa: E402

JR = str(ROOT / ".venv" / "bin" / "judge-runner")
EXAMPLES = ROOT / "bench" / "examples"


def cli(*args: str) -> str:
    done = subprocess.run([JR, *args], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"judge-runner {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return done.stdout


def make_runs(out: Path, sandbox: str) -> tuple[Path, Path]:
    dataset = out / "dataset"
    cli("import", str(EXAMPLES / "trials"), "--tasks", str(EXAMPLES / "tasks"), "--out",
        str(dataset))
    rules = out / "run-rules"
    cli("eval", str(dataset), "--judge", "rules", "--skill", str(ROOT / "judgeskills" / "v1"),
        "--sandbox", "none", "--run-dir", str(rules), "--no-progress")
    agent = out / "run-agent"
    server = FakeMessagesServer().start()
    try:
        agent_run(Dataset(dataset), agent, server, sandbox=sandbox)
    finally:
        server.stop()
    return rules, agent


def check_checklist(b: Browser, run: Path, shots: Path, failures: list[str]) -> None:
    """Every case page shows its checklist, items linked to their judgments and citations."""
    cases = sorted((run / "view" / "cases").glob("*.html"))
    rows = links = 0
    for page in cases:
        with b.page(page) as p:
            found = p.locator("#checklist-items tr.cl-item").count()
            cites = p.locator("#checklist a.cite").count()
            if found == 0 or cites == 0:
                failures.append(f"{page}: no checklist section with citation links")
            if p.locator("#cl-C06.stopped").count() and not (shots / "checklist.png").exists():
                p.locator("#checklist").screenshot(path=str(shots / "checklist.png"))
            rows += found
            links += cites
    print(f"{run.name}: {len(cases)} checklist sections, {rows} item rows, {links} links")


def check_run(b: Browser, run: Path, shots: Path, failures: list[str]) -> int:
    view = run / "view"
    pages = [view / "index.html", *sorted((view / "cases").glob("*.html"))]
    citations = 0
    for page in pages:
        shot = shots / f"{run.name}-index.png" if page.name == "index.html" else None
        report = b.check(page, shot)
        citations += report.citations
        for problem, items in (("console error", report.console_errors),
                               ("request leaving the machine", report.outside_requests),
                               ("citation to a missing element", report.broken)):
            failures += [f"{page}: {problem}: {item}" for item in items]
    print(f"{run.name}: {len(pages)} pages, {citations} citation links, all checked")
    return citations


def check_marks(b: Browser, run: Path, shots: Path, failures: list[str], *,
                want_unverified: bool) -> None:
    """A misjudged case shows its mark after the verdict; an unverified quote is flagged."""
    cases = sorted((run / "view" / "cases").glob("*.html"))
    misjudged = unverified = marked = 0
    for page in cases:
        with b.page(page) as p:
            is_misjudged = p.locator("#outcome.misjudged #misjudged").count() == 1
            flagged = p.locator("li.unverified .badge.unverified").count()
            marks = p.locator("mark.quote.unverified").count()
            in_products = p.locator("#products .badge.misjudged").count()
            if in_products:
                failures.append(f"{page}: the misjudged mark is inside the judge's products")
            if is_misjudged and not misjudged:
                p.locator("#outcome").scroll_into_view_if_needed()
                p.screenshot(path=str(shots / f"{run.name}-misjudged.png"))
            if flagged and not unverified:
                link = p.locator("li.unverified a.cite").first
                link.click()
                p.wait_for_timeout(100)
                if p.locator(".hl").count() != 1:
                    failures.append(f"{page}: clicking a citation highlighted no element")
                p.screenshot(path=str(shots / f"{run.name}-unverified-target.png"))
                p.locator("li.unverified").first.scroll_into_view_if_needed()
                p.screenshot(path=str(shots / f"{run.name}-unverified.png"))
            misjudged += is_misjudged
            unverified += flagged
            marked += marks
    print(f"{run.name}: {misjudged} misjudged case pages, {unverified} unverified quotes flagged "
          f"({marked} of them located and marked in the cited output)")
    if misjudged == 0:
        failures.append(f"{run.name}: no case page marks a misjudged case")
    if want_unverified and unverified == 0:
        failures.append(f"{run.name}: no unverified quote is flagged")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "view-check")
    parser.add_argument("--sandbox", default="local", choices=["local", "docker"])
    args = parser.parse_args()
    missing = playwright_missing()
    if missing:
        raise SystemExit(f"check-viewer: {missing}")
    configure(level="warning")
    out: Path = args.out
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    rules, agent = make_runs(out, args.sandbox)
    checklist = checklist_run(out / "dataset", out / "checklists", out / "run-checklist")
    for run in (rules, agent, checklist):
        cli("view", str(run))
    print(cli("view", str(rules), str(agent)).strip())
    shots = out / "screenshots"
    shots.mkdir()
    failures: list[str] = []
    with browser() as b:
        check_run(b, rules, shots, failures)
        check_run(b, agent, shots, failures)
        check_run(b, checklist, shots, failures)
        check_checklist(b, checklist, shots, failures)
        check_marks(b, rules, shots, failures, want_unverified=False)
        check_marks(b, agent, shots, failures, want_unverified=True)
        compare = agent / "view" / "compare.html"
        report = b.check(compare, shots / "compare.png", full_page=True)
        failures += [f"{compare}: {e}" for e in report.console_errors + report.outside_requests]
    print(f"screenshots: {shots}")
    if failures:
        print("\n".join(["FAILED:", *failures]), file=sys.stderr)
        raise SystemExit(1)
    print("check-viewer: all pages load without errors and every citation resolves")


if __name__ == "__main__":
    main()
