"""judge-runner: a containerized agent-as-a-judge runner for long agent runs."""

__version__ = "0.1.0"
