from __future__ import annotations

from judge_runner.view.markdown import render_markdown


def test_markdown_renders_but_raw_html_and_scripts_stay_text() -> None:
    html = str(render_markdown("# Title\n\n**bold** <script>x()</script>\n\n<img src=x onerror=y>"))
    assert "<h1>Title</h1>" in html and "<strong>bold</strong>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<img" not in html


def test_no_remote_image_and_no_script_link() -> None:
    source = "![logo](http://example.invalid/logo.png) [go](javascript:alert(1))"
    html = str(render_markdown(source))
    assert "<img" not in html
    assert 'href="javascript:' not in html
