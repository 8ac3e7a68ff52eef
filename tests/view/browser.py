"""Driving headless Chromium over viewer pages with Playwright (Debian's /usr/bin/chromium; no
browser download): load a page, collect console errors and failed or non-local requests,
check that every citation link lands on an element of the page, time the load, screenshot.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]

# Every a.cite on the page: its target id and whether an element with that id exists.
_CITATIONS_JS = """() => Array.from(document.querySelectorAll('a.cite')).map(a => {
  const id = decodeURIComponent(a.getAttribute('href').slice(1));
  return [id, document.getElementById(id) !== null];
})"""
_TIMING_JS = """() => { const n = performance.getEntriesByType('navigation')[0];
  return [n.domContentLoadedEventEnd, n.loadEventEnd]; }"""


def chromium_path() -> str | None:
    return shutil.which("chromium")


def playwright_missing() -> str | None:
    """Why the browser checks cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (JR_EXTRAS=dev ./scripts/setup-venv)"
    if chromium_path() is None:
        return "no chromium on PATH (apt-get install chromium)"
    return None


@dataclass
class PageReport:
    path: Path
    console_errors: list[str] = field(default_factory=list)
    outside_requests: list[str] = field(default_factory=list)
    citations: int = 0
    broken: list[str] = field(default_factory=list)
    dom_ms: float = 0.0  # navigation start to DOMContentLoaded end
    load_ms: float = 0.0  # navigation start to load event end

    @property
    def ok(self) -> bool:
        return not (self.console_errors or self.outside_requests or self.broken)


class Browser:
    def __init__(self, context: Any) -> None:
        self.context = context

    @contextmanager
    def page(self, path: Path, report: PageReport | None = None) -> Iterator[Any]:
        """The page at `path` loaded, with errors and requests recorded into `report`."""
        report = report if report is not None else PageReport(path)
        page = self.context.new_page()
        page.on("console", lambda m: report.console_errors.append(m.text)
                if m.type in ("error", "assert") else None)
        page.on("pageerror", lambda e: report.console_errors.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: report.console_errors.append(f"failed: {r.url}"))
        page.on("request", lambda r: report.outside_requests.append(r.url)
                if not r.url.startswith(("file:", "data:", "http://127.0.0.1")) else None)
        try:
            page.goto(path.resolve().as_uri(), wait_until="load")
            yield page
        finally:
            page.close()

    def check(self, path: Path, screenshot: Path | None = None,
              full_page: bool = False) -> PageReport:
        report = PageReport(path)
        with self.page(path, report) as page:
            report.dom_ms, report.load_ms = page.evaluate(_TIMING_JS)
            links = page.evaluate(_CITATIONS_JS)
            report.citations = len(links)
            report.broken = [target for target, exists in links if not exists]
            if screenshot is not None:
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(screenshot), full_page=full_page)
        return report


@contextmanager
def browser(width: int = 1280, height: int = 900) -> Iterator[Browser]:
    """Headless Chromium with a fresh profile directory, removed afterwards."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    if executable is None:
        raise RuntimeError("no chromium on PATH (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="jr-chromium-") as profile, \
            sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            profile, executable_path=executable, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": width, "height": height})
        try:
            yield Browser(context)
        finally:
            context.close()
