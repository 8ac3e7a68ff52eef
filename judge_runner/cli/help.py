"""How `--help` reads, for every command and group of the application.

- click's plain layout, not typer's rich panels: it wraps option help instead of cutting it to
  "…" at 80 columns, and shows a flag as a flag, not with a `<bool>` value it would refuse;
- a group lists each command with the whole first sentence of its help, wrapped, never cut to
  "..." at the terminal's width;
- an argument is named in capitals (`DATASET`, `TRIALS...`, `[NAME]` when optional) in the usage
  line, the Arguments section and usage errors, as the help texts refer to it, instead of
  typer's `{dataset}`.

`readable_help(app)` sets all three on an application before its click command is built;
commands and groups registered with a class of their own keep it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

if TYPE_CHECKING:  # typer's own click, whose Context typer.Context extends
    from typer._click import Context

__all__ = ["ReadableCommand", "ReadableGroup", "readable_help"]

_WHOLE = 10_000  # a summary limit no first sentence reaches


class ReadableCommand(TyperCommand):
    """A command whose arguments are named in capitals (unless given a metavar) and whose
    summary in its group's list is not cut."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for param in self.params:
            if isinstance(param, TyperArgument) and param.metavar is None and param.name:
                param.metavar = param.name.upper()

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                pieces.append(_usage_piece(param))
        return pieces

    def get_short_help_str(self, limit: int = 45) -> str:
        return super().get_short_help_str(_WHOLE)


class ReadableGroup(TyperGroup):
    """A group whose summary in its parent's list is not cut."""

    def get_short_help_str(self, limit: int = 45) -> str:
        return super().get_short_help_str(_WHOLE)


def _usage_piece(argument: TyperArgument) -> str:
    name = argument.metavar or (argument.name or "").upper()
    if argument.nargs != 1:
        name += "..."
    return name if argument.required else f"[{name}]"


def readable_help(group: typer.Typer) -> None:
    """Plain layout, whole summaries and readable argument names for `group` and every command
    and group below it."""
    group.rich_markup_mode = None
    if not isinstance(group.info.cls, type) or group.info.cls is TyperGroup:
        group.info.cls = ReadableGroup
    for command in group.registered_commands:
        if command.cls in (None, TyperCommand):
            command.cls = ReadableCommand
    for info in group.registered_groups:
        if info.typer_instance is not None:
            readable_help(info.typer_instance)
