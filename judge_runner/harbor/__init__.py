"""Judge cases as Harbor trials: export cases as Harbor tasks, judge them with a Harbor agent,
collect Harbor jobs back into judge-runner runs.

Harbor itself is optional (`pip install judge-runner[harbor]`): `export` and `collect` work on
plain files and never import it; only `judge_runner.harbor.agent` and `judge_runner.harbor.sandbox`
do, and they are loaded by Harbor, which is then installed by definition.
"""
