"""CLI: `view` — the audit pages of a run, of two runs side by side, or of an evolution."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judge_runner.cli.support import fail, io_failure


def view_command(
    runs: Annotated[list[Path], typer.Argument(
        help="A run directory, two run directories (A B) to compare, or an evolution run "
             "directory (with state.json).")],
    dataset: Annotated[Path | None, typer.Option(
        "--dataset", help="The judged dataset, when the path in metrics.json no longer holds.")]
    = None,
    out: Annotated[Path | None, typer.Option(
        "--out", help="With two runs: where the side-by-side page goes "
                      "(default RUN_B/view/compare.html).")] = None,
    serve: Annotated[bool, typer.Option(
        "--serve", help="Also serve the pages on 127.0.0.1 until Ctrl-C.")] = False,
    port: Annotated[int, typer.Option("--port", min=0, max=65535,
                                      help="Port for --serve (0: any free port).")] = 8765,
) -> None:
    """Write static audit pages into the run directory, and optionally serve them.

    The pages open from disk: every verdict's plan, inspections and citations linked to what
    they cite."""
    from judge_runner.view.compare import write_compare_page
    from judge_runner.view.lineage import is_evolution_dir, write_lineage_page
    from judge_runner.view.pages import ViewError, write_run_pages

    if len(runs) > 2:
        raise fail(f"view takes one run directory or two to compare, got {len(runs)}")
    for run in runs:
        if not run.is_dir():
            raise fail(f"{run} is not a directory")
    if out is not None and len(runs) != 2:
        raise fail("--out is for the side-by-side page of two runs")
    try:
        if len(runs) == 2:
            page, comparison = write_compare_page(runs[0], runs[1], out, dataset)
            typer.echo(f"{len(comparison.changed)} of {comparison.n_shared} shared cases changed")
        elif is_evolution_dir(runs[0]):
            page = write_lineage_page(runs[0], dataset)
        else:
            page = write_run_pages(runs[0], dataset).index
    except ViewError as exc:
        raise fail(str(exc)) from exc
    except OSError as exc:  # pages are written whole (temporary name, then rename) or not at all
        raise io_failure(exc, "writing the pages", "pages already written are whole; free "
                         "space and run the same command again") from None
    typer.echo(f"view: {page}")
    if serve:
        _serve(runs, page, port)


def _serve(runs: list[Path], page: Path, port: int) -> None:
    # Only what was written: the view/ folders involved (for an evolution run, its own and its
    # judgment runs'), and the page itself (a compare page written with --out).
    from judge_runner.view.lineage import is_evolution_dir, judgment_runs
    from judge_runner.view.pages import VIEW_DIR
    from judge_runner.view.serve import Served, make_server, url_of

    dirs = list(runs)
    if len(runs) == 1 and is_evolution_dir(runs[0]):
        dirs += judgment_runs(runs[0])
    served = Served.of([d / VIEW_DIR for d in dirs], [page])
    try:
        server = make_server(served, port)
    except OSError as exc:
        raise fail(f"cannot listen on 127.0.0.1:{port}: {exc}") from exc
    typer.echo(f"serving the pages under {served.root} at {url_of(server, served, page)} "
               "(Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def register(app: typer.Typer) -> None:
    app.command("view")(view_command)
