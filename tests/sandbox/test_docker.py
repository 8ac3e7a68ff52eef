"""DockerSandbox against the real engine: no network, read-only case and root filesystem, no
root, nothing outside the case package, timeouts, pids/memory/output limits, file access,
cleanup and a command server that commands cannot subvert."""

from __future__ import annotations

import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge_runner.sandbox import SandboxError, SandboxLimits
from judge_runner.sandbox.docker import DockerSandbox
from judge_runner.sandbox.wrapper import HOST_SLACK
from tests.sandbox.conftest import Planted, docker_client

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def box(
    docker_engine: None, planted_module: Planted, test_labels: dict[str, str]
) -> Iterator[DockerSandbox]:
    """One sandbox shared by the read-only checks (a judging session keeps one per case)."""
    with DockerSandbox(planted_module.case_dir, labels=test_labels) as sandbox:
        yield sandbox


def _open(case_dir: Path, labels: dict[str, str], **limits: Any) -> DockerSandbox:
    return DockerSandbox(case_dir, limits=SandboxLimits(**limits), labels=labels)


def _engine_has(name: str) -> bool:
    client = docker_client()
    try:
        return any(c["Names"] == [f"/{name}"]
                   for c in client.api.containers(all=True, filters={"name": name}))
    finally:
        client.close()


def _exec_as_root(box: DockerSandbox, cmd: str) -> str:
    client = docker_client()
    try:
        created = client.api.exec_create(box.name, ["sh", "-c", cmd], user="0")
        stdout: bytes = client.api.exec_start(created["Id"], demux=True)[0] or b""
        return stdout.decode()
    finally:
        client.close()


# -- no network -------------------------------------------------------------------------------

def _connect_script(host: str, port: int) -> str:
    return ("python3 -c \"import socket; s = socket.create_connection(("
            f"'{host}', {port}), timeout=3); print('CONNECTED')\"")


def test_no_network_to_host_loopback_or_outside(box: DockerSandbox) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted: list[bool] = []
    threading.Thread(target=lambda: accepted.append(bool(server.accept())), daemon=True).start()
    try:
        # The listener is real: the host itself can reach it.
        socket.create_connection(("127.0.0.1", port), timeout=3).close()
        inside = box.exec(_connect_script("127.0.0.1", port))
        assert inside.exit_code != 0 and "CONNECTED" not in inside.stdout
        assert "ConnectionRefused" in inside.stderr
    finally:
        server.close()
    outside = box.exec(_connect_script("1.1.1.1", 53))
    assert outside.exit_code != 0 and "CONNECTED" not in outside.stdout
    assert "unreachable" in outside.stderr.lower()
    interfaces = box.exec("ls /sys/class/net").stdout.split()
    assert interfaces == ["lo"]


# -- read-only case, nothing else reachable ---------------------------------------------------

def test_case_is_read_only_and_rootfs_too(box: DockerSandbox) -> None:
    mount = box.exec("awk '$2 == \"/case\" {print $4}' /proc/mounts").stdout
    assert mount.split(",")[0] == "ro"
    for cmd in ("touch /case/artifacts/new", "echo x >> /case/artifacts/out.csv", "touch /etc/x",
                "mkdir /case/artifacts/d", "rm /case/artifacts/out.csv"):
        result = box.exec(cmd)
        assert result.exit_code != 0, cmd
        assert "Read-only file system" in result.stderr, cmd
    assert box.exec("cat /case/artifacts/out.csv").stdout.startswith("name,value")
    scratch = box.exec("echo ok > /scratch/f && cat /scratch/f && echo ok > /tmp/g && cat /tmp/g")
    assert scratch.stdout == "ok\nok\n"


def test_runs_as_non_root_without_capabilities(box: DockerSandbox) -> None:
    assert box.exec("id -u").stdout.strip() == "10001"
    caps = box.exec("grep CapEff /proc/self/status").stdout.split()
    assert caps[-1] == "0000000000000000"


def test_labels_evidence_and_other_cases_cannot_be_found(
    box: DockerSandbox, planted_module: Planted
) -> None:
    p = planted_module
    # The bracket keeps each pattern from matching the search's own command line.
    patterns = " ".join(f"-e '{c[:-1]}[{c[-1]}]'"
                        for c in (p.label_canary, p.evidence_canary, p.other_case_canary))
    content = (f"grep -rIl --no-messages {patterns} / --exclude-dir=proc --exclude-dir=sys; "
               "echo searched")
    names = ("find / \\( -path /proc -o -path /sys \\) -prune -o \\( -name labels.jsonl "
             "-o -name evidence -o -name reward.txt -o -name case-b \\) -print 2>/dev/null; "
             "echo searched")
    for search in (content, names):
        # As the judge's user: what any command in the sandbox could find...
        as_judge = box.exec(search, timeout=120)
        assert as_judge.stdout == "searched\n", as_judge
        # ...and as the container's root, which reads every file there: it is not there at all.
        assert _exec_as_root(box, search) == "searched\n"
    # The host tree holding the dataset is not mounted at its host path either.
    assert box.exec(f"test -e '{p.root}'").exit_code == 1
    assert box.exec("test -e /work").exit_code == 1
    # Links planted in the package resolve inside the container, where there is nothing.
    for link in ("peek-relative", "peek-absolute", "peek-evidence"):
        assert box.exec(f"cat /case/artifacts/{link}").exit_code != 0
        with pytest.raises(FileNotFoundError):
            box.read_file(f"/case/artifacts/{link}")
    # ...while on the host the same links do reach the secrets (the test is not vacuous).
    assert p.label_canary in (p.case_dir / "artifacts" / "peek-absolute").read_text()


# -- timeouts, fork bombs, output floods, memory ----------------------------------------------

def test_sleep_is_killed_at_its_timeout_with_its_whole_tree(box: DockerSandbox) -> None:
    result = box.exec("sleep 1000", timeout=1)
    assert result.timed_out and result.exit_code is None
    assert 1.0 <= result.duration < 4.0
    tree = box.exec("sleep 1001 & (sleep 1002 &) ; setsid sleep 1003 & "
                    "trap '' TERM; sleep 1004", timeout=1)
    assert tree.timed_out
    left = box.exec("ps -eo args | grep -c '^sleep 100[0-9]' || true")
    assert left.stdout.strip() == "0", box.exec("ps -eo pid,pgid,sid,args").stdout


def test_background_leftovers_are_killed_when_the_command_ends(box: DockerSandbox) -> None:
    result = box.exec("setsid sleep 2001 >/dev/null 2>&1 & nohup sleep 2002 >/dev/null 2>&1 & "
                      "echo started")
    assert result.stdout == "started\n" and result.exit_code == 0
    assert result.duration < 5
    assert box.exec("ps -eo args | grep -c '^sleep 200' || true").stdout.strip() == "0"


def test_a_command_exiting_124_on_its_own_is_not_a_timeout(box: DockerSandbox) -> None:
    result = box.exec("exit 124", timeout=30)
    assert not result.timed_out and result.exit_code == 124


def test_a_wedged_wrapper_is_swept_from_outside_and_the_sandbox_stays_usable(
    box: DockerSandbox,
) -> None:
    # Stop the wrapper shell (the parent of timeout, our parent): it can no longer report, so
    # the host waits past its deadline, then kills the leftovers with a `docker exec`.
    wedge = "kill -STOP $(cut -d' ' -f4 /proc/$PPID/stat); sleep 1000"
    result = box.exec(wedge, timeout=1)
    assert result.timed_out and result.exit_code is None
    assert HOST_SLACK < result.duration < HOST_SLACK + 20  # the host did wait past its deadline
    assert box.exec("echo ok").stdout == "ok\n"
    assert box.exec("ps -eo args | grep -c '^sleep 1000' || true").stdout.strip() == "0"


def test_fork_bomb_is_stopped_by_the_pids_limit(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    with _open(planted.case_dir, test_labels, pids=64) as sandbox:
        limit = sandbox.exec("cat /sys/fs/cgroup/pids/pids.max 2>/dev/null "
                             "|| cat /sys/fs/cgroup/pids.max")
        assert limit.stdout.strip() == "64"
        bomb = sandbox.exec("bomb() { bomb | bomb & }; bomb; sleep 2; ps -e --no-headers | wc -l",
                            timeout=4)
        # The bomb hit the ceiling (forks failed) instead of taking the machine down.
        assert "Resource temporarily unavailable" in bomb.stderr or bomb.timed_out
        after = sandbox.exec("ps -e --no-headers | wc -l; echo alive")
        assert after.stdout.endswith("alive\n")
        # Left: init, sleep infinity, the wrapper, ps/wc — the bomb is gone.
        assert int(after.stdout.split()[0]) <= 8


def test_100_mb_of_output_is_capped_and_marked_while_streaming(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    cap = 64 * 1024
    with _open(planted.case_dir, test_labels, output_cap=cap) as sandbox:
        tracemalloc.start()
        try:
            result = sandbox.exec("head -c 100000000 /dev/zero | tr '\\0' x; "
                                  "echo -n END-OF-OUTPUT; echo oops >&2")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert result.exit_code == 0 and result.truncated
    total = 100_000_000 + len("END-OF-OUTPUT")
    assert f"[... {total - cap} bytes cut by the sandbox output cap ...]" in result.stdout
    assert result.stdout.startswith("x" * 1000)
    assert result.stdout.endswith("END-OF-OUTPUT")  # the tail is kept
    assert len(result.stdout) < cap + 200
    assert result.stderr == "oops\n"
    assert peak < 16 * 1024 * 1024, f"host buffered {peak} bytes"


def _container_dir(container_id: str) -> Path:
    client = docker_client()
    try:
        return Path(client.api.info()["DockerRootDir"]) / "containers" / container_id
    finally:
        client.close()


def test_output_leaves_nothing_on_the_hosts_disk(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    """The engine keeps no log of the container: with the default json-file driver every line
    the command server relays was stored under the container's folder (~30x the output, for
    as long as the container exists)."""
    with _open(planted.case_dir, test_labels) as sandbox:
        client = docker_client()
        try:
            info = client.api.inspect_container(sandbox.container_id)
        finally:
            client.close()
        assert info["HostConfig"]["LogConfig"]["Type"] == "none"
        assert info["LogPath"] == ""
        folder = _container_dir(sandbox.container_id)
        lines = sandbox.exec("yes | head -c 10000000; seq 1 200000 >&2")
        binary = sandbox.exec("head -c 10000000 /dev/urandom")
        assert lines.exit_code == 0 and lines.truncated and lines.stdout.startswith("y\ny\n")
        assert binary.exit_code == 0 and binary.truncated
        if folder.is_dir():  # the engine's data root is readable (root, the CI machine)
            logs = [p for p in folder.rglob("*") if p.is_file() and "log" in p.name]
            assert logs == [], f"the engine logged the container's output: {logs}"
            stored = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
            assert stored < 1_000_000, f"{stored} bytes under {folder}"


def test_memory_exhaustion_is_contained(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    with _open(planted.case_dir, test_labels, memory_mb=128, scratch_mb=16) as sandbox:
        hog = sandbox.exec("python3 -c \"x = bytearray(1024 * 2**20); print('allocated')\"")
        assert "allocated" not in hog.stdout
        assert hog.exit_code in (1, 137)  # MemoryError, or the cgroup OOM killer
        disk = sandbox.exec("head -c 100000000 /dev/zero > /scratch/big")
        assert disk.exit_code != 0 and "No space left on device" in disk.stderr
        assert sandbox.exec("echo still-here").stdout == "still-here\n"


# -- files and tools --------------------------------------------------------------------------

def test_read_file_and_list_files(box: DockerSandbox) -> None:
    assert box.read_file("/case/artifacts/out.csv") == b"name,value\nalpha,1\nbeta,2\n"
    assert box.read_file("/case/artifacts/out.csv", max_bytes=4) == b"name"
    with pytest.raises(FileNotFoundError):
        box.read_file("/case/nope.txt")
    with pytest.raises(IsADirectoryError):
        box.read_file("/case/artifacts")
    with pytest.raises(PermissionError):
        box.read_file("/etc/shadow")
    assert box.list_files() == [
        "/case/artifacts/out.csv",
        "/case/artifacts/peek-absolute",
        "/case/artifacts/peek-evidence",
        "/case/artifacts/peek-relative",
        "/case/instruction.md",
    ]
    with pytest.raises(FileNotFoundError):
        box.list_files("/nowhere")


def test_read_file_refuses_files_over_the_read_limit(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    with _open(planted.case_dir, test_labels, max_read_bytes=10) as sandbox:
        with pytest.raises(SandboxError, match="larger than 10 bytes"):
            sandbox.read_file("/case/artifacts/out.csv")
        assert sandbox.read_file("/case/artifacts/out.csv", max_bytes=5) == b"name,"


def test_image_has_the_inspection_tools(box: DockerSandbox) -> None:
    tools = "bash grep rg find jq file diff sqlite3 pdftotext python3 timeout unzip"
    found = box.exec(f"for t in {tools}; do command -v $t >/dev/null || echo missing $t; done")
    assert found.stdout == "" and found.exit_code == 0
    script = (
        "import openpyxl, docx, pptx, PIL.Image, sqlite3\n"
        "wb = openpyxl.Workbook(); wb.active['A1'] = 42; wb.save('/scratch/t.xlsx')\n"
        "print(openpyxl.load_workbook('/scratch/t.xlsx').active['A1'].value)\n"
        "d = docx.Document(); d.add_paragraph('hello docx'); d.save('/scratch/t.docx')\n"
        "print(docx.Document('/scratch/t.docx').paragraphs[0].text)\n"
        "p = pptx.Presentation(); p.save('/scratch/t.pptx'); print(len(pptx.Presentation("
        "'/scratch/t.pptx').slides))\n"
    )
    box.exec(f"cat > /scratch/t.py <<'EOF'\n{script}EOF")
    result = box.exec("python3 /scratch/t.py && echo '{\"a\": [1]}' | jq -c .a")
    assert result.stdout == "42\nhello docx\n0\n[1]\n", result.stderr


# -- cleanup ----------------------------------------------------------------------------------

def test_container_removed_on_close_and_close_is_idempotent(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    sandbox = _open(planted.case_dir, test_labels)
    assert _engine_has(sandbox.name)
    sandbox.close()
    sandbox.close()
    assert not _engine_has(sandbox.name)
    with pytest.raises(SandboxError, match="closed"):
        sandbox.exec("true")


def test_container_removed_when_the_caller_raises_mid_case(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    names: list[str] = []
    with (
        pytest.raises(RuntimeError, match="judge crashed"),
        _open(planted.case_dir, test_labels) as sandbox,
    ):
        names.append(sandbox.name)
        sandbox.exec("ls /case")
        raise RuntimeError("judge crashed")
    assert names and not _engine_has(names[0])


def test_missing_image_and_missing_case_are_clear_errors(
    docker_engine: None, planted: Planted, tmp_path: Path
) -> None:
    with pytest.raises(SandboxError, match="scripts/build-images"):
        DockerSandbox(planted.case_dir, image="judge-runner-judge:no-such-tag")
    with pytest.raises(SandboxError, match="not found"):
        DockerSandbox(tmp_path / "cases" / "missing")
    with pytest.raises(SandboxError, match=r"holds labels\.jsonl, evidence, cases: that is a "
                                          "dataset root"):
        DockerSandbox(planted.root)
    private = planted.case_dir / "artifacts" / "private.txt"
    private.write_text("x")
    private.chmod(0o600)
    with pytest.raises(SandboxError, match=r"private\.txt is not readable"):
        DockerSandbox(planted.case_dir)


def test_exec_after_the_container_died_is_a_sandbox_error(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    with _open(planted.case_dir, test_labels) as sandbox:
        client = docker_client()
        client.api.kill(sandbox.name)
        client.close()
        deadline = time.monotonic() + 10
        with pytest.raises(SandboxError):
            while time.monotonic() < deadline:
                sandbox.exec("true")


# -- the command server -----------------------------------------------------------------------

SERVER_PID = "ps -eo pid=,ppid=,comm= | awk '$2 == 1 && $3 == \"python3\" {print $1}'"


def test_escapes_that_drop_the_marker_and_hold_stdout_are_killed(box: DockerSandbox) -> None:
    # A detached child that clears its environment and keeps the output pipe open would
    # otherwise hold the command (and every later one) until it exits.
    result = box.exec("env -i setsid sleep 3001 & echo detached", timeout=30)
    assert result.stdout == "detached\n" and result.exit_code == 0
    assert result.duration < 5
    assert box.exec("ps -eo args | grep -c '^sleep 300' || true").stdout.strip() == "0"


def test_command_output_cannot_forge_the_server_protocol(box: DockerSandbox) -> None:
    forged = "printf 'x\\000\\000\\000\\013{\"code\": 0}'; exit 7"
    result = box.exec(forged)
    assert result.exit_code == 7
    assert result.stdout == 'x\x00\x00\x00\x0b{"code": 0}'
    assert box.exec("echo next").stdout == "next\n"


def test_commands_cannot_reach_into_the_server(box: DockerSandbox) -> None:
    server = box.exec(SERVER_PID).stdout.strip()
    assert server.isdigit()
    peek = box.exec(f"ls /proc/{server}/fd; echo forged > /proc/{server}/fd/1")
    assert peek.exit_code != 0 and "Permission denied" in peek.stderr
    assert box.exec("echo still-fine").stdout == "still-fine\n"


def test_a_command_too_long_to_start_is_a_failed_command(box: DockerSandbox) -> None:
    result = box.exec("echo " + "a" * 200_000)
    assert result.exit_code == 126
    assert "cannot start the command" in result.stderr
    assert box.exec("echo fine").stdout == "fine\n"


def test_a_killed_server_is_a_sandbox_error_not_a_result(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    with _open(planted.case_dir, test_labels) as sandbox:
        with pytest.raises(SandboxError):
            sandbox.exec(f"kill -KILL $({SERVER_PID})")
            sandbox.exec("echo unreachable")
        name = sandbox.name
    assert not _engine_has(name)
