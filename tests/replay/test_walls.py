"""The walls behind classification: bubblewrap, the host map for every endpoint, bounds.

An adversarial session (side effects disguised as checks) is replayed with
``--execute`` in the loopback-only network namespace of these tests, on a
throwaway directory: nothing may change (a hash manifest before and after), and a
listener standing in for a host nobody mapped must see no connection, both with
the default allow-list and with ``--allow unknown`` (then the sandbox is the only
wall).  A step that prints without end is cut at the cap and the run completes and
is stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kb.cli import cli
from kb.exitcodes import ExitCode
from kb.replay.sandbox import Policy, local_bwrap
from kb.replay.sshexec import Executor
from kb.store import KbStore
from tests.replay.conftest import RECORDED_HOST, make_session

UNMAPPED = "10.9.9.9"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def steps_of(r: Result) -> list[dict]:
    return [json.loads(x) for x in r.stdout.splitlines()]


def manifest(root: Path) -> dict[str, str]:
    """Every path under ``root`` with the sha256 of its content (directories as "dir")."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        out[rel] = "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


class Listener:
    """A TCP server on loopback that counts the connections it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = False
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    lst = Listener()
    # the listener works: a connection from the test itself is seen
    socket.create_connection(("127.0.0.1", lst.port), 2).close()
    deadline = time.monotonic() + 2
    while lst.accepted == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert lst.accepted == 1
    lst.accepted = 0
    yield lst
    lst.close()


def _world(tmp_path: Path) -> tuple[Path, Path, Path]:
    world = tmp_path / "world"
    work = world / "work"
    (work / "sub").mkdir(parents=True)
    (work / "a.txt").write_text("keep me\n")
    (work / "sub" / "b.txt").write_text("and me\n")
    (work / "evil.sh").write_text(f"rm -f a.txt; echo pwned > {world}/planted\n")
    outside = world / "outside"
    outside.mkdir()
    (outside / "note").write_text("untouched\n")
    return world, work, outside


def _session(world: Path, work: Path, outside: Path, port: int) -> list[str]:
    h = f"ssh root@{RECORDED_HOST}"
    a = work / "a.txt"
    return [
        "cat a.txt",                                                      # read-only: runs
        "python3 -c 'open(\"a.txt\", \"w\").write(\"gone\")'",            # unknown
        "python3 -c 'import shutil; shutil.rmtree(\"sub\")'",             # unknown
        f"python3 -c 'import os; os.system(\"touch {world}/pwn\")'",      # unknown
        "perl -e 'unlink \"a.txt\"'",                                     # unknown
        "sh ./evil.sh",                                                   # unknown
        "x='a[$(rm -f a.txt)]'; [[ $x -eq 0 ]]",                          # unknown (arith)
        f"cat < /dev/tcp/127.0.0.1/{port}",                               # unknown: no network
        f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 2)'",
        f"curl -s http://127.0.0.1:{port}/",                              # unknown: no network
        f"echo pwned > {outside}/note",                                   # mutating
        f"yes > {outside}/fill",                                          # mutating
        "rm -rf sub",                                                     # mutating
        "echo x | tee a.txt",                                             # mutating
        "find . -name a.txt -delete",                                     # mutating
        f"ssh root@{UNMAPPED} 'rm -rf {work}'",                           # unmapped: refused
        f"echo hi > /dev/tcp/{UNMAPPED}/80",                              # refused
        f"curl -s http://{UNMAPPED}:{port}/",                             # refused
        f"{h} 'python3 -c \"open(\\\"{a}\\\", \\\"w\\\").write(\\\"x\\\")\"'",  # unknown, remote
        f"{h} 'cat < /dev/tcp/127.0.0.1/{port}'",                         # unknown, remote
        f"{h} 'cat {a}'",                                                 # read-only, remote
    ]


def test_an_adversarial_session_changes_nothing_and_reaches_nothing(
        tmp_path: Path, config: Path, listener: Listener) -> None:
    world, work, outside = _world(tmp_path)
    cmds = _session(world, work, outside, listener.port)
    db = make_session(tmp_path, [(c, "keep me\n", 0) for c in cmds], directory=str(work))
    before = manifest(world)

    # 1. the default: only read-only steps run
    r = run("replay", "run", "--db", str(db), "--from", "1", "--json")
    steps = steps_of(r)
    assert len(steps) == len(cmds)
    ran = {s["recorded_command"] for s in steps if s["action"] == "run"}
    assert ran == {cmds[0], cmds[-1]}, ran
    assert all(s["verdict"] == "same" for s in steps if s["action"] == "run"), steps
    for s in steps:
        if s["action"] == "run":
            assert s["protection"].startswith(("sandboxed here by bwrap", "on ")), s
    assert manifest(world) == before
    assert listener.accepted == 0

    # 2. --allow unknown: the classifier lets the unknown steps through, and the sandbox
    # is the only wall left (read-only root, private /tmp, no network), here and on the
    # ssh target
    r = run("replay", "run", "--db", str(db), "--from", "1", "--allow", "unknown",
            "--json")
    steps = steps_of(r)
    by = {s["recorded_command"]: s for s in steps}
    for c in cmds[1:10] + cmds[18:20]:
        assert by[c]["action"] == "run", (c, by[c]["reason"])
        assert by[c]["verdict"] != "skipped", by[c]
    for c in cmds[10:15]:
        assert by[c]["action"] == "skip" and "--allow mutating" in by[c]["reason"], c
    for c in cmds[15:18]:
        assert by[c]["action"] == "skip" and "refused" in by[c]["reason"], c
    assert "Read-only file system" in by[cmds[1]]["output"]
    assert "Read-only file system" in by[cmds[18]]["output"]  # the target's bwrap
    assert manifest(world) == before
    assert listener.accepted == 0
    assert r.exit_code in (0, ExitCode.REPLAY_CHANGED)


def test_the_sandbox_stops_a_write_the_classifier_missed(tmp_path: Path) -> None:
    """A step the plan would run as read-only that writes anyway: bwrap stops it."""
    assert local_bwrap() is not None, "bubblewrap must work here (.ci/run installs it)"
    work = tmp_path / "w"
    work.mkdir()
    (work / "f").write_text("x\n")
    with Executor(tmp_path / "ctl", [], bwrap=local_bwrap()) as ex:
        out = ex.run_local("touch new; echo y > f; rm -f f; echo z > /tmp/logkb-escape-"
                           f"{os.getpid()}; ls /tmp", cwd=str(work), timeout=20,
                           sandbox=Policy())
        assert "Read-only file system" in out.output
        assert sorted(p.name for p in work.iterdir()) == ["f"]
        assert (work / "f").read_text() == "x\n"
        assert not Path(f"/tmp/logkb-escape-{os.getpid()}").exists()  # a private /tmp
        # --allow mutating widens it to the working directory (and /tmp), nothing else
        out = ex.run_local("touch new; touch /etc/logkb-escape", cwd=str(work),
                           timeout=20, sandbox=Policy(writable=(str(work), "/tmp")))
        assert (work / "new").exists()
        assert not Path("/etc/logkb-escape").exists()
        assert "Read-only file system" in out.output


def test_a_step_printing_without_end_is_cut_and_the_run_is_stored(
        tmp_path: Path, isolated_home: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    db = make_session(tmp_path, [("yes", "y\ny\ny\n", 0), ("echo after", "after\n", 0)],
                      directory=str(work))
    t0 = time.monotonic()
    r = run("replay", "run", "--db", str(db), "--from", "1", "--max-output", "65536",
            "--json")
    assert time.monotonic() - t0 < 30  # stopped for printing, not by the 120 s timeout
    first, second = steps_of(r)
    assert first["action"] == "run" and len(first["output"]) == 65536
    assert first["output_dropped"] >= 64 * 65536
    assert "Output capped at 65536 bytes" in first["explanation"]
    assert "kept printing" in first["explanation"]
    assert second["verdict"] == "same"  # the run went on
    with KbStore(db, read_only=True) as store:
        (status, executed), = store.conn.execute(
            "SELECT status, executed_count FROM replay_runs").fetchall()
        rows = store.conn.execute("SELECT ordinal, length(output), output_dropped, sandbox "
                                  "FROM replay_steps ORDER BY ordinal").fetchall()
    assert status == "completed" and executed == 2
    assert rows[0][1] == 65536 and rows[0][2] >= 64 * 65536
    assert rows[0][3].startswith("sandboxed here by bwrap")


def test_an_interrupted_run_keeps_the_steps_it_did(tmp_path: Path, isolated_home: Path) -> None:
    from kb.replay.hostmap import build_host_map
    from kb.replay.run import execute, make_plan, save_run

    work = tmp_path / "w"
    work.mkdir()
    db = make_session(tmp_path, [("echo one", "one\n", 0), ("echo two", "two\n", 0),
                                 ("echo three", "three\n", 0)], directory=str(work))
    with KbStore(db, read_only=True) as store:
        plan = make_plan(store, store.resolve_session(None), build_host_map([], {}), start=1)

    def save(rec, new):  # type: ignore[no-untyped-def]
        with KbStore(db) as st:
            save_run(st, rec, new)

    def stop_after_first(res):  # type: ignore[no-untyped-def]
        if res.step.recorded_command == "echo one":
            raise KeyboardInterrupt

    record = execute(plan, save=save, on_done=stop_after_first)
    assert record.status == "interrupted"
    with KbStore(db, read_only=True) as store:
        (status,), = store.conn.execute("SELECT status FROM replay_runs").fetchall()
        rows = store.conn.execute("SELECT run_command, verdict FROM replay_steps "
                                  "ORDER BY ordinal").fetchall()
    assert status == "interrupted"
    assert rows[0] == ("echo one", "same")
    assert [v for _, v in rows[1:]] == ["skipped", "skipped"]


def test_without_bwrap_execute_refuses_unless_no_sandbox(tmp_path: Path, isolated_home: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    import kb.replay.sandbox as sb

    work = tmp_path / "w"
    work.mkdir()
    db = make_session(tmp_path, [("echo hi", "hi\n", 0)], directory=str(work))
    monkeypatch.setattr(sb, "local_bwrap", lambda: None)
    monkeypatch.setattr("kb.replay.run.local_bwrap", lambda: None)
    r = run("replay", "run", "--db", str(db), "--from", "1")
    assert r.exit_code == ExitCode.FAILED and "bubblewrap" in r.stderr
    r = run("replay", "run", "--db", str(db), "--from", "1", "--no-sandbox", "--json")
    (s,) = steps_of(r)
    assert s["verdict"] == "same" and s["protection"] == "classification only (--no-sandbox)"
