"""`judge-runner sandbox ...`: prune leftovers, show status, run a command in a case sandbox."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from judge_runner.cli.judge_options import parse_sandbox
from judge_runner.sandbox import engine
from judge_runner.sandbox.base import SandboxError, SandboxKind
from judge_runner.sandbox.docker import install_cleanup_hooks
from judge_runner.sandbox.limits import SandboxLimits
from judge_runner.sandbox.prune import list_sandboxes, prune
from judge_runner.sandbox.select import open_sandbox, resolve_kind

sandbox_app = typer.Typer(help="Judge sandboxes: status, cleanup, manual commands.",
                          no_args_is_help=True)


def _client_or_exit() -> object:
    try:
        return engine.connect(timeout=10)
    except SandboxError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


@sandbox_app.command("prune")
def prune_command(
    all_: Annotated[bool, typer.Option("--all", help="Also remove containers of live runs.")]
    = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List, do not remove.")] = False,
) -> None:
    """Remove sandbox containers left by runs that crashed or were killed."""
    client = _client_or_exit()
    removed = prune(client, everything=all_, dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    for leftover in removed:
        typer.echo(f"{verb} {leftover.name} (case {leftover.case}, owner pid "
                   f"{leftover.owner_pid} on {leftover.owner_host}, {leftover.status})")
    typer.echo(f"{verb} {len(removed)} container(s)")


@sandbox_app.command("status")
def status_command() -> None:
    """Which sandbox `auto` picks here, whether the judge image exists, live sandboxes."""
    kind = resolve_kind(SandboxKind.AUTO)
    typer.echo(f"auto sandbox: {kind.value}")
    if kind != "docker":
        typer.echo("no Docker engine answers: the local sandbox (no isolation) would be used")
        return
    client = engine.connect()
    image = engine.default_image()
    try:
        image_id = client.api.inspect_image(image)["Id"]
        typer.echo(f"image: {image} ({image_id[:19]})")
    except engine.errors().ImageNotFound:
        typer.echo(f"image: {image} MISSING (run scripts/build-images)")
    for box in list_sandboxes(client):
        state = "live run" if box.owner_alive else "leftover"
        typer.echo(f"{box.name}\t{box.case}\t{box.status}\t{state}")


@sandbox_app.command("exec")
def exec_command(
    case_dir: Annotated[Path, typer.Argument(
        help="A case folder: DATASET/cases/<id> with a valid case.json.")],
    command: Annotated[str, typer.Argument(help="Shell command, run with bash in /case.")],
    sandbox: Annotated[SandboxKind, typer.Option(
        "--sandbox", parser=parse_sandbox, metavar="auto|docker|local",
        help="Where to run the command.")] = SandboxKind.AUTO,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds.")] = 60.0,
) -> None:
    """Run one command in a fresh sandbox for a case, print its output, exit with its status.

    CASE_DIR must be a case folder (DATASET/cases/<id> holding a valid case.json); a dataset
    root, evidence/<id> or any other folder is refused (exit 2), so labels and verifier output
    are never mounted."""
    from judge_runner.cases.folder import NotACaseFolderError, case_folder

    try:
        case = case_folder(case_dir)
    except NotACaseFolderError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    try:
        with open_sandbox(sandbox, case, limits=SandboxLimits(exec_timeout=timeout)) as box:
            result = box.exec(command)
    except SandboxError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.timed_out:
        typer.echo(f"[timed out after {timeout} s]", err=True)
        raise typer.Exit(124)
    raise typer.Exit(result.exit_code or 0)


def register(app: typer.Typer) -> None:
    app.add_typer(sandbox_app, name="sandbox")
    # The CLI builds its commands on the main thread, the only place signal handlers can be
    # installed; judges open their sandboxes later in worker threads, where they cannot.
    install_cleanup_hooks()
