"""A prebuilt task's upload packed into JudgeAgent's setup command: what the archive holds, its
size cap, and (on the real engine) the setup command placing it in the judge image."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from judge_runner.harbor import layout, upload
from judge_runner.harbor.agent import setup_command


def _upload_folder(root: Path) -> Path:
    (root / "case" / "artifacts").mkdir(parents=True)
    (root / "case" / "case.json").write_text('{"id": "c1"}\n')
    (root / "case" / "artifacts" / "run.sh").write_text("echo hi\n")
    (root / "case" / "artifacts" / "run.sh").chmod(0o755)
    (root / "case" / "artifacts" / "link").symlink_to("/etc/passwd")
    (root / "skills" / "judge").mkdir(parents=True)
    (root / "skills" / "judge" / "SKILL.md").write_text("# skill\n")
    return root


def _members(archive: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        return {m.name: m for m in tar.getmembers()}


def test_the_archive_holds_the_folder_as_roots_with_links_kept(tmp_path: Path) -> None:
    root = _upload_folder(tmp_path / "upload")
    os.mkfifo(root / "case" / "artifacts" / "pipe")
    archive = upload.pack(root, upload.DEFAULT_INLINE_BYTES)
    assert archive is not None
    members = _members(archive)
    assert sorted(members) == [".", "./case", "./case/artifacts", "./case/artifacts/link",
                               "./case/artifacts/run.sh", "./case/case.json", "./skills",
                               "./skills/judge", "./skills/judge/SKILL.md"]  # no FIFO
    assert all((m.uid, m.gid, m.uname, m.gname) == (0, 0, "root", "root")
               for m in members.values())
    assert members["./case/artifacts/link"].issym()
    assert members["./case/artifacts/link"].linkname == "/etc/passwd"
    assert members["./case/artifacts/run.sh"].mode & 0o111


def test_an_upload_over_the_cap_or_a_zero_cap_is_not_packed(tmp_path: Path) -> None:
    root = _upload_folder(tmp_path / "upload")
    packed = upload.pack(root, upload.DEFAULT_INLINE_BYTES)
    assert packed is not None
    assert upload.pack(root, len(packed)) == packed
    assert upload.pack(root, len(packed) - 1) is None
    assert upload.pack(root, 0) is None
    # Incompressible bytes: the packing stops at the cap rather than compressing them all.
    (root / "case" / "artifacts" / "noise.bin").write_bytes(os.urandom(2_000_000))
    assert upload.pack(root, upload.DEFAULT_INLINE_BYTES) is None


def test_the_setup_command_unpacks_only_when_given_an_archive(tmp_path: Path) -> None:
    archive = upload.pack(_upload_folder(tmp_path / "upload"), upload.DEFAULT_INLINE_BYTES)
    assert archive is not None
    copied = setup_command("/skills", uploaded=True)
    inline = setup_command("/skills", uploaded=True, archive=archive)
    assert "base64 -d" not in copied
    assert inline.endswith(copied)  # the same placement after the unpacking
    assert inline.startswith(f"rm -rf {layout.UPLOAD_STAGING_DIR} && ")


@pytest.mark.docker
def test_the_inline_setup_places_the_upload_read_only_for_the_judge(
    judge_image: str, tmp_path: Path
) -> None:
    """In the judge image run as it is, the one setup command unpacks and places the case and
    the skill: root's, readable and not writable by the judge's user, the symlink a symlink."""
    archive = upload.pack(_upload_folder(tmp_path / "upload"), upload.DEFAULT_INLINE_BYTES)
    assert archive is not None
    container = subprocess.run(
        ["docker", "run", "-d", "--rm", "--network", "none", judge_image, "sh", "-c",
         "sleep infinity; exit 0"], capture_output=True, text=True, check=True,
        timeout=120).stdout.strip()

    def run(user: str, script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["docker", "exec", "-u", user, container, "bash", "-c", script],
                              capture_output=True, text=True, timeout=120)

    try:
        setup = run("root", "mkdir -p /logs/agent && "
                    + setup_command("/skills", uploaded=True, archive=archive))
        assert setup.returncode == 0, setup.stdout + setup.stderr
        listing = run("root", "stat -c '%U %a %n' /case /case/case.json /case/artifacts/run.sh "
                      "/skills/judge/SKILL.md; readlink /case/artifacts/link; "
                      f"ls {layout.UPLOAD_STAGING_DIR} 2>&1 || true").stdout.splitlines()
        assert listing[:5] == ["root 755 /case", "root 644 /case/case.json",
                               "root 755 /case/artifacts/run.sh",
                               "root 644 /skills/judge/SKILL.md", "/etc/passwd"], listing
        assert "No such file" in listing[5]
        judge = run(layout.JUDGE_USER, "cat /case/case.json /skills/judge/SKILL.md; "
                    "touch /case/x /skills/judge/x 2>/dev/null && echo writable; true")
        assert judge.stdout == '{"id": "c1"}\n# skill\n', judge.stdout + judge.stderr
    finally:
        subprocess.run(["docker", "rm", "-f", container], capture_output=True, timeout=120)
