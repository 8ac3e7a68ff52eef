"""LocalSandbox: timeouts, rlimits and output caps on the host. It is not isolation."""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from judge_runner.sandbox import SandboxLimits
from judge_runner.sandbox.local import LocalSandbox
from tests.sandbox.conftest import Planted


@pytest.fixture
def box(planted: Planted) -> Iterator[LocalSandbox]:
    with LocalSandbox(planted.case_dir, limits=SandboxLimits(memory_mb=512)) as sandbox:
        yield sandbox


def test_says_it_is_not_isolation(box: LocalSandbox) -> None:
    assert box.kind == "local" and box.isolated is False


def test_commands_see_case_and_scratch_paths(box: LocalSandbox) -> None:
    result = box.exec("pwd; cat /case/artifacts/out.csv | wc -l; echo hi > /scratch/f; "
                      "cat /scratch/f; echo oops >&2; exit 3")
    assert result.stdout == "/case\n3\nhi\n"
    assert result.stderr == "oops\n" and result.exit_code == 3
    assert box.read_file("/case/instruction.md").startswith(b"Write the report")
    assert box.list_files("/scratch") == ["/scratch/f"]


def test_the_copy_drops_links_leaving_the_package(box: LocalSandbox, planted: Planted) -> None:
    assert sorted(box.skipped_links) == ["artifacts/peek-absolute", "artifacts/peek-evidence",
                                         "artifacts/peek-relative"]
    assert box.list_files() == ["/case/artifacts/out.csv", "/case/instruction.md"]
    with pytest.raises(FileNotFoundError):
        box.read_file("/case/artifacts/peek-absolute")
    assert planted.label_canary not in box.exec("cat /case/artifacts/* 2>&1").stdout


def test_the_original_package_is_never_written(box: LocalSandbox, planted: Planted) -> None:
    box.exec("echo changed > /case/artifacts/out.csv; rm -f /case/instruction.md")
    assert (planted.case_dir / "artifacts" / "out.csv").read_text().startswith("name,value")
    assert (planted.case_dir / "instruction.md").is_file()


def unique_sleep() -> str:
    """A sleep command no other process on the machine runs: the checks below count processes
    machine-wide, and a shared machine may run this same test suite next to us."""
    return f"sleep 3{os.getpid()}.{uuid.uuid4().int % 10**9}"


def test_timeout_kills_the_whole_tree(box: LocalSandbox) -> None:
    marker = unique_sleep()
    result = box.exec(f"{marker} & setsid {marker} & trap '' TERM; {marker}", timeout=1)
    assert result.timed_out and result.exit_code is None
    assert result.duration < 5
    assert box.exec(f"pgrep -fc '^{marker}' || true").stdout.strip() == "0"


def test_background_leftovers_are_killed(box: LocalSandbox) -> None:
    marker = unique_sleep()
    box.exec(f"setsid {marker} >/dev/null 2>&1 & echo started")
    assert box.exec(f"pgrep -fc '^{marker}' || true").stdout.strip() == "0"


def test_memory_rlimit(box: LocalSandbox) -> None:
    hog = box.exec("python3 -c \"x = bytearray(2 * 1024 * 2**20); print('allocated')\"")
    assert "MemoryError" in hog.stderr and "allocated" not in hog.stdout


def test_every_rlimit_is_set_in_commands_run_from_worker_threads(planted: Planted) -> None:
    limits = SandboxLimits(memory_mb=512, cpu_seconds=7, scratch_mb=3, pids=99)
    probe = "ulimit -v; ulimit -t; ulimit -f; ulimit -u; ulimit -c"
    with LocalSandbox(planted.case_dir, limits=limits) as sandbox, \
            ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: sandbox.exec(probe), range(8)))
    assert {r.stdout for r in results} == {f"{512 << 10}\n7\n{3 << 10}\n99\n0\n"}


def test_cpu_time_rlimit(planted: Planted) -> None:
    with LocalSandbox(planted.case_dir, limits=SandboxLimits(cpu_seconds=1)) as sandbox:
        spin = sandbox.exec("python3 -c 'while True: pass'", timeout=30)
    # Soft and hard limit are equal, so Linux sends SIGKILL along with SIGXCPU.
    assert not spin.timed_out and spin.exit_code in (128 + signal.SIGXCPU, 128 + signal.SIGKILL)
    assert spin.duration < 15


def test_file_size_rlimit(planted: Planted) -> None:
    with LocalSandbox(planted.case_dir, limits=SandboxLimits(scratch_mb=1)) as sandbox:
        big = sandbox.exec("head -c 5000000 /dev/zero > /scratch/big")
        assert big.exit_code != 0
        assert "File size limit exceeded" in big.stderr or big.exit_code == 153


def test_output_is_capped_and_marked(planted: Planted) -> None:
    with LocalSandbox(planted.case_dir, limits=SandboxLimits(output_cap=4096)) as sandbox:
        result = sandbox.exec("head -c 10000000 /dev/zero | tr '\\0' y")
    assert result.truncated
    assert "[... 9995904 bytes cut by the sandbox output cap ...]" in result.stdout


def test_close_deletes_the_copy(planted: Planted) -> None:
    sandbox = LocalSandbox(planted.case_dir)
    root = sandbox.case_path.parent
    sandbox.exec("touch /scratch/x")
    sandbox.close()
    assert not root.exists()


def test_a_command_too_long_to_start_is_a_failed_command(box: LocalSandbox) -> None:
    result = box.exec("echo " + "a" * 200_000)
    assert result.exit_code == 126 and "cannot start the command" in result.stderr
