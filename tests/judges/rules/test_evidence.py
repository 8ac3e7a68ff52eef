"""Evidence readers: which instruction paths are required outputs, and how writes are found."""

from __future__ import annotations

from pathlib import Path

from judge_runner.judges.rules.evidence import CaseView, RequiredOutput, required_outputs
from tests.casebuilder import bash, build_case, msg, read, write


def paths(text: str) -> list[str]:
    return [o.path for o in required_outputs(text)]


def test_output_sentence_makes_a_path_required() -> None:
    assert paths("Parse `/root/in.bin` and save the result to `/root/report.json`.") == [
        "/root/report.json"]


def test_input_cues_keep_inputs_out() -> None:
    text = ("The input (`/root/scan.stl`) is binary. Data is located in /root/data/a.txt.\n"
            "Load `solutions.json` and write the answer to `/root/answer.txt`.\n")
    assert paths(text) == ["/root/answer.txt"]


def test_list_items_inherit_the_lead_in_verb() -> None:
    text = ("Give me 2 files:\n1. A json file named /root/labels.json, with labels.\n"
            "2. A mask file called /root/masks.npz.\n")
    assert paths(text) == ["/root/labels.json", "/root/masks.npz"]


def test_list_items_under_an_input_lead_in_are_not_outputs() -> None:
    text = "The following data is provided in `/root/`:\n- `table1.xls` nominal\n- `cpi.xlsx`\n"
    assert paths(text) == []


def test_bare_names_and_urls() -> None:
    text = "Finally, create `report.json` (see https://example.com/spec.json for the format).\n"
    assert paths(text) == ["report.json"]


def test_relative_output_matches_any_directory() -> None:
    output = RequiredOutput(path="report.json", quote="")
    assert output.matches("/app/report.json") and not output.matches("/app/report.csv")
    absolute = RequiredOutput(path="/root/out.json", quote="")
    assert absolute.matches("/root/out.json") and not absolute.matches("/tmp/out.json")


def test_a_read_back_proves_existence_but_is_not_a_write(tmp_path: Path) -> None:
    steps = [bash("python3 job.py --out /root/out.json", "done"),
             read("/root/out.json", '{"total": 6}'), msg("Done.")]
    view = CaseView(build_case(tmp_path, steps))
    output = view.outputs[0]
    assert view.last_write_index(output) is None  # no write call or redirect is visible
    evidence = view.write_evidence(output)
    assert evidence is not None and evidence.ref == "0"  # a non-inspection command names it


def test_inspection_commands_are_not_writes(tmp_path: Path) -> None:
    steps = [write("/root/out.json", "{}"), bash("cat /root/out.json", "{}"), msg("Done.")]
    view = CaseView(build_case(tmp_path, steps))
    assert view.last_write_index(view.outputs[0]) == 0
