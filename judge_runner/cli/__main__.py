"""`python -m judge_runner.cli`: the same as the `judge-runner` command."""

from judge_runner.cli.root import main

main()
