"""The on-disk layout of a dataset and its case packages: file and folder names, and the
sentinels the normalized files carry. Every reader and writer takes its names from here.

    <dataset>/
      cases/<case_id>/          the only part ever mounted for a judge
        case.json               CaseMeta
        instruction.md          the task instruction the agent got
        trajectory.json         Trajectory (normalized steps)
        skills/<skill>/...      task-time skills exactly as the agent had them
        artifacts/...           final files the agent produced
      labels.jsonl              LabelRecord per line (outside cases/)
      import_report.json        what the importer did (carries rewards: secret like the labels)
      evidence/<case_id>/...    verifier output, dev-only (outside cases/)
      IMPORT_INCOMPLETE         present while an import is writing the dataset, and left behind
                                when one stopped (a full disk, a kill): the dataset is partial
"""

from __future__ import annotations

CASES_DIR = "cases"
LABELS_FILE = "labels.jsonl"
EVIDENCE_DIR = "evidence"
IMPORT_REPORT_FILE = "import_report.json"
INCOMPLETE_FILE = "IMPORT_INCOMPLETE"

CASE_FILE = "case.json"
INSTRUCTION_FILE = "instruction.md"
TRAJECTORY_FILE = "trajectory.json"
SKILLS_DIR = "skills"
ARTIFACTS_DIR = "artifacts"

# The text of an assistant step that repeated the run's final message word for word; the
# normalizer writes it in place of the copy, readers put the final message back.
SAME_AS_FINAL = "[identical to final_message]"
