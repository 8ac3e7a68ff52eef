"""A small agentic inspect_ai task on inspect_ai's built-in mock model (no network): writes a
real eval log for the import tests and the import benchmark.

Each sample asks for a sum; the scripted model calls the ``add`` tool, then answers. Sample
``s1`` answers right (scored C: pass), ``s2`` wrong (I: fail), ``s3`` gets a tool error (a
negative number is refused) and answers anyway (I: fail).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_log(log_dir: Path, copies: int = 1) -> Path:
    """Run the task (`copies` times over its samples) and return the written .eval log."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate, use_tools
    from inspect_ai.tool import ToolError, tool

    @tool
    def add() -> Any:
        async def execute(x: int, y: int) -> int:
            """Add two non-negative numbers.

            Args:
                x: first number
                y: second number
            """
            if x < 0 or y < 0:
                raise ToolError("negative numbers are not supported")
            return x + y
        return execute

    def scripted(output: Any) -> Any:
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output

    model = "mockllm/model"
    script = [
        ModelOutput.for_tool_call(model, "add", {"x": 2, "y": 3}),
        ModelOutput.from_content(model, "The answer is 5."),
        ModelOutput.for_tool_call(model, "add", {"x": 1, "y": 1}),
        ModelOutput.from_content(model, "The answer is 3."),
        ModelOutput.for_tool_call(model, "add", {"x": -1, "y": 1}),
        ModelOutput.from_content(model, "The tool failed; I guess 7."),
    ]
    samples = [Sample(input="What is 2 + 3? Use the add tool.", target="5", id="s1"),
               Sample(input="What is 1 + 1? Use the add tool.", target="2", id="s2"),
               Sample(input="What is -1 + 1? Use the add tool.", target="0", id="s3")]
    task = Task(dataset=samples * copies if copies == 1 else
                [Sample(input=s.input, target=s.target, id=f"{s.id}-{i}")
                 for i in range(copies) for s in samples],
                solver=[use_tools(add()), generate()], scorer=includes(), name="adder")
    logs = inspect_eval(task, model=get_model(model, custom_outputs=[
                            scripted(o) for _ in range(copies) for o in script]),
                        log_dir=str(log_dir), display="none", max_samples=1)
    if logs[0].status != "success":
        raise RuntimeError(f"inspect_ai run failed: {logs[0].error}")
    return Path(logs[0].location)
