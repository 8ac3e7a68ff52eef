"""`ClosedOnExit`: the one `with`-block base for resources that must be closed (sandboxes, run
stores)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self


class ClosedOnExit(ABC):
    """A `with` block calls `close()` on the way out, whatever the exception (Ctrl-C included)."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
