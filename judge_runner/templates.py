"""Jinja environments for the `templates/` folder of each stage, built once per package."""

from __future__ import annotations

from functools import cache

import jinja2

from judge_runner.untrusted import page_value


@cache
def environment(package: str, *, html: bool = False, trim: bool = False) -> jinja2.Environment:
    """The environment loading `<package>/templates/`.

    A variable the template uses but the caller did not pass raises jinja2.UndefinedError (a
    missing variable is a bug, not an empty string); a missing template raises
    jinja2.TemplateNotFound. `html` autoescapes `*.html.j2` templates (prompts are markdown for a
    model and are never escaped); `trim` drops the newline after a block tag and the indentation
    before it. Rendered text keeps its trailing newline. In `html` environments every printed
    value has its control and bidi-control characters shown as escapes (`page_value`): pages
    show a run's text, and a bidi override in a file name must not reorder what a reader sees.
    """
    return jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html", "html.j2"]) if html else False,
        trim_blocks=trim,
        lstrip_blocks=trim,
        keep_trailing_newline=True,
        finalize=page_value if html else None,
    )
