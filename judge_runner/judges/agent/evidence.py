"""Machine-checking the quotes an inspection cites against the real tool outputs.

A quote is verified when, after collapsing runs of whitespace, it is a substring of the output
the cited tool call returned to the model — either as shown, or with JSON string escapes
decoded (the judge often reads JSON files such as trajectory.json, whose text holds `\\n` and
`\\"`, and may quote the decoded text).
"""

from __future__ import annotations

import json

from judge_runner.text import quote_found

_ESCAPES = {"\\n": "\n", "\\t": "\t", '\\"': '"', "\\/": "/", "\\\\": "\\"}


def json_unescaped(text: str) -> str:
    """`text` with JSON string escapes decoded; unknown or broken escapes are left as they are."""
    out: list[str] = []
    i = 0
    while i < len(text):
        pair = text[i : i + 2]
        if pair in _ESCAPES:
            out.append(_ESCAPES[pair])
            i += 2
        elif pair == "\\u" and i + 6 <= len(text):
            try:
                out.append(json.loads(f'"{text[i : i + 6]}"'))
                i += 6
            except ValueError:
                out.append(text[i])
                i += 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def quote_in_output(quote: str, output: str) -> bool:
    return quote_found(quote, output) or quote_found(quote, json_unescaped(output))
