"""The splits an evolution run uses, and refusing any that touches the evaluation set.

`--dev` may be a file of case ids or a bench directory (from `bench build`); the gate, the eval
split and the dataset default to `gate.txt`, `eval.txt` and the manifest's dataset beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judge_runner.splits import MANIFEST_FILE, read_split, verified_dataset


class SplitOverlapError(ValueError):
    pass


def refuse_overlap(dev: list[str], gate: list[str], eval_ids: list[str]) -> None:
    """Raise SplitOverlapError when dev or gate shares a case with the eval split.

    Gate cases are normally drawn from dev, so dev/gate overlap is expected and allowed.
    """
    held_out = set(eval_ids)
    for name, ids in (("dev", dev), ("gate", gate)):
        shared = sorted(held_out.intersection(ids))
        if shared:
            raise SplitOverlapError(
                f"the {name} split shares {len(shared)} case(s) with the eval split "
                f"(e.g. {', '.join(shared[:3])}); evaluation cases never enter evolution"
            )


@dataclass(frozen=True)
class EvolveSplits:
    dataset: Path
    dev: list[str]
    gate: list[str]


def resolve_splits(
    dev: Path, gate: Path | None, eval_split: Path | None, dataset: Path | None
) -> EvolveSplits:
    """Read the dev and gate splits, find the dataset, and refuse an eval overlap.

    Raises OSError for a missing split file or dataset, ValueError when no dataset can be found
    or the bench manifest's dataset has changed since the splits were built, and
    SplitOverlapError (a ValueError) when dev or gate shares a case with the eval split.
    """
    bench = dev if dev.is_dir() else dev.parent
    dev_file = bench / "dev.txt" if dev.is_dir() else dev
    gate_file = gate if gate is not None else bench / "gate.txt"
    eval_file = eval_split if eval_split is not None else bench / "eval.txt"
    if (bench / MANIFEST_FILE).is_file():
        # Splits built by `bench build` name their dataset and refuse one that has changed.
        dataset = verified_dataset(bench, dataset).root
    elif dataset is None:
        raise ValueError(f"no --dataset given and no {MANIFEST_FILE} in {bench} to find it")
    dev_ids, gate_ids = read_split(dev_file), read_split(gate_file)
    refuse_overlap(dev_ids, gate_ids, read_split(eval_file) if eval_file.is_file() else [])
    return EvolveSplits(dataset=dataset, dev=dev_ids, gate=gate_ids)
