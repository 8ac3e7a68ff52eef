"""Refusing evolution splits that touch the evaluation set."""

from __future__ import annotations


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
