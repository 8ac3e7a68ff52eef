"""`agent/trajectory.json`: one file name, two formats, told apart by their shape.

Harbor's ATIF converters write one JSON object with an ``ATIF-v1.x`` ``schema_version`` (Claude
Code, gemini-cli, ...); terminus-2 writes a JSON list of ``{episode, prompt, response}`` turns.
Raises `TranscriptError` naming both when the document is neither.
"""

from __future__ import annotations

from judge_runner.ingest import atif, terminus
from judge_runner.ingest.raw import RawRun, TranscriptError


def parse(text: str) -> RawRun:
    doc = atif.load_json(text)
    if isinstance(doc, list):
        if terminus.looks_like(doc):
            return terminus.parse_document(doc, len(text))
        raise TranscriptError("trajectory.json is a list but not a terminus-2 episode list "
                              "(expected {episode, prompt, response} objects)")
    return atif.parse_document(doc, len(text))
