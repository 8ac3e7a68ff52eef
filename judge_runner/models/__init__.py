"""Model clients."""

from judge_runner.models.base import ModelClient, ModelError, ModelRequest, ModelResponse, Usage

__all__ = ["ModelClient", "ModelError", "ModelRequest", "ModelResponse", "Usage"]
