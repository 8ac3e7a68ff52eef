"""What the in-context examples of simulated annotators add to a judge's prompt, on real trials.

Imports the trials (default: ../shared/data/skillsbench-real) into a temporary dataset, draws
`-k` example sets for every case from the dataset's own labelled cases (the judged case and its
task left out, as the judges draw them) and prints, in estimated tokens (4 characters a
token, as the digest budget counts), the example section of one annotator next to what it is
added to: the direct judge's digest and the agent judge's case message.

    .venv/bin/python scripts/bench_annotators.py [--data DIR] [-k 3] [--per-set 2] [--chars 400]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judge_runner.cases import Dataset, estimate_tokens  # noqa: E402
from judge_runner.ingest import ImportOptions, import_trials  # noqa: E402
from judge_runner.judges.agent import prompt  # noqa: E402
from judge_runner.judges.agent.tools import DEFAULT_PAGE_CHARS  # noqa: E402
from judge_runner.judges.annotators import Annotators, load_examples  # noqa: E402
from judge_runner.judges.digest import render_digest  # noqa: E402


def spread(name: str, values: list[int]) -> str:
    return (f"{name}: min {min(values):,}, median {statistics.median(values):,.0f}, "
            f"max {max(values):,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" /
                        "skillsbench-real")
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("--per-set", type=int, default=2)
    parser.add_argument("--chars", type=int, default=400)
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp()) / "dataset"
    import_trials([args.data / "trials"], out, ImportOptions(task_dirs=[args.data / "tasks"]))
    dataset = Dataset(out)
    voters = Annotators(k=args.k, pool=load_examples(out, args.chars), per_set=args.per_set)
    cases = [dataset.case(c) for c in dataset.case_ids()]
    sections = [estimate_tokens(voters.section(j, case)) for case in cases for j in range(args.k)]
    print(f"{len(cases)} cases, {len(voters.pool)} labelled examples, k {args.k}, "
          f"per_set {args.per_set}, example_chars {args.chars}")
    print(spread("example section of one annotator", sections))
    print(spread("direct digest", [estimate_tokens(render_digest(c, 150_000)[0])
                                   for c in cases]))
    print(spread("agent case message", [estimate_tokens(prompt.render_case(c, DEFAULT_PAGE_CHARS))
                                        for c in cases]))


if __name__ == "__main__":
    main()
