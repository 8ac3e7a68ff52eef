"""The shared Jinja environments: strict variables, escaping only for HTML, one per package."""

from __future__ import annotations

import jinja2
import pytest

from judge_runner.templates import environment


def test_one_environment_per_package_and_options() -> None:
    html = environment("judge_runner.runs", html=True)
    assert html is environment("judge_runner.runs", html=True)
    assert environment("judge_runner.runs") is not html


def test_html_templates_are_escaped_and_prompts_and_css_are_not() -> None:
    html = environment("judge_runner.runs", html=True)
    escapes = html.autoescape
    assert callable(escapes) and escapes("report.html.j2") and not escapes("base.css.j2")
    prompts = environment("judge_runner.judges")
    assert prompts.from_string("{{ x }}").render(x="<b>&") == "<b>&"


def test_missing_variables_raise_and_trailing_newlines_stay() -> None:
    env = environment("judge_runner.judges")
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ missing }}").render()
    assert env.from_string("{{ x }}\n").render(x=1) == "1\n"


def test_trim_drops_block_tag_lines() -> None:
    source = "a\n  {% if x %}\nb\n  {% endif %}\nc\n"
    assert environment("judge_runner.judges.agent", trim=True).from_string(source).render(x=1) \
        == "a\nb\nc\n"
    assert environment("judge_runner.judges").from_string(source).render(x=1) == "a\n  \nb\n  \nc\n"
