"""Item 4 of issue 24: no hangs.  Ingest and watch open only regular files (no FIFO,
device or socket), follow a symlink to a file and say so, never follow one to a
directory, detect link loops, report every path they skip with its reason (stderr and
``--json``; ``watch``: a ``not_taken`` event each), and leave no knowledge base file
behind when nothing was stored; ``watch`` stops on SIGTERM."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from logparse.safe_open import NotRegular, open_regular
from tests.hostile.conftest import ROOT
from tests.hostile.corpus import write_forms


def _logkb(*args: str, home: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home),
           "LOGKB_HOME": str(home / "logkb"), "XDG_DATA_HOME": str(home / "data")}
    # stdin is a pipe nobody writes: /proc/self/fd/0 would block a reader forever
    return subprocess.run([sys.executable, "-m", "kb", *args], env=env, text=True,
                          capture_output=True, timeout=timeout, stdin=subprocess.PIPE)


@pytest.fixture
def nasty_dir(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A directory with one transcript (and a link to it) among things that hang a naive
    reader; the value says what each must be reported as."""
    d = tmp_path / "nasty"
    d.mkdir()
    codex = write_forms(tmp_path / "src")[2]
    shutil.copyfile(codex, d / "real.jsonl")
    os.symlink("real.jsonl", d / "link.jsonl")
    os.mkfifo(d / "fifo.jsonl")
    os.symlink("/dev/zero", d / "zero.jsonl")
    os.symlink("/proc/self/fd/0", d / "stdin.jsonl")
    os.symlink("loop-b", d / "loop-a")
    os.symlink("loop-a", d / "loop-b")
    os.symlink("..", d / "up")
    os.symlink("/nonexistent/x", d / "dangling.jsonl")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(d / "sock"))
    sock.close()
    return d, {"fifo.jsonl": "FIFO", "zero.jsonl": "character device",
               "stdin.jsonl": "which is", "loop-a": "symlink loop", "loop-b": "symlink loop",
               "up": "symlink to the directory", "dangling.jsonl": "dangling symlink",
               "sock": "socket"}


def test_ingest_a_directory_of_special_files_reports_each_and_does_not_hang(
        nasty_dir: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    d, expect = nasty_dir
    db = tmp_path / "kb.duckdb"
    t0 = time.monotonic()
    r = _logkb("ingest", "--json", "--db", str(db), str(d), home=tmp_path)
    assert time.monotonic() - t0 < 60
    rep = json.loads(r.stdout)
    assert [s["messages"] for s in rep["sessions"]] == [18]
    reasons = {Path(e["path"]).name: e["reason"] for e in rep["errors"]}
    for name, word in expect.items():
        assert word in reasons.get(name, ""), (name, reasons)
        assert f"{name}: not a transcript" in r.stderr, (name, r.stderr)
    assert rep["links"] == [{"path": str(d / "link.jsonl"), "target": str(d / "real.jsonl")}]
    assert "followed symlink" in _logkb("ingest", "--force", "--db", str(db), str(d / "link.jsonl"),
                                        home=tmp_path).stderr


@pytest.mark.parametrize("make", ["fifo", "empty", "garbage", "utf16", "dir-of-fifo"])
def test_a_refused_input_leaves_no_knowledge_base_file(make: str, tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    if make == "fifo":
        os.mkfifo(src)
    elif make == "empty":
        src.write_bytes(b"")
    elif make == "garbage":
        src.write_bytes(bytes(range(256)) * 20)
    elif make == "utf16":  # no BOM: not a form logkb reads
        src.write_bytes('{"type": "session_meta", "payload": {}}\n'.encode("utf-16-le"))
    else:
        src = tmp_path / "d"
        src.mkdir()
        os.mkfifo(src / "x.jsonl")
    db = tmp_path / "kb" / "kb.duckdb"
    r = _logkb("ingest", "--json", "--db", str(db), str(src), home=tmp_path, timeout=60)
    assert r.returncode == 3, r.stderr
    assert json.loads(r.stdout)["errors"], r.stdout
    assert not db.exists() and not Path(f"{db}.wal").exists()
    assert not (tmp_path / "logkb").exists() or not any((tmp_path / "logkb").rglob("*.duckdb"))


def test_open_regular_closes_the_race_with_fstat(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A path that was a regular file when it was checked and is a FIFO when opened: the
    open does not block (``O_NONBLOCK``) and ``fstat`` refuses it."""
    import logparse.safe_open as so

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    monkeypatch.setattr(so, "refusal", lambda _p: None)  # the check saw a regular file
    done: list[BaseException] = []

    def run() -> None:
        try:
            open_regular(fifo)
        except BaseException as e:  # noqa: BLE001
            done.append(e)

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(10)
    assert not th.is_alive(), "open_regular blocked on a FIFO"
    assert isinstance(done[0], NotRegular) and "FIFO" in done[0].reason


@pytest.mark.parametrize("read", ["ends_at", "prefix_hashes", "line_start"])
def test_what_an_ingest_reads_again_of_a_file_never_waits_on_a_fifo(
        tmp_path: Path, read: str) -> None:
    """A transcript replaced by a FIFO while it is ingested (after the check that let it
    in): what the ingest reads of it again besides the reading (when its copy ends, the
    hashes and lines a resumed reading checks) opens it as a regular file or not at all,
    never waiting for a writer."""
    from logparse.claude_code import ClaudeCodeReader
    from logparse.resume import line_start, prefix_hashes

    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    calls = {"ends_at": lambda: ClaudeCodeReader.ends_at(fifo, "s"),
             "prefix_hashes": lambda: prefix_hashes(fifo, 100),
             "line_start": lambda: line_start(fifo, 4096, 40, 3)}
    done: list[object] = []

    def run() -> None:
        try:
            done.append(calls[read]())
        except BaseException as e:  # noqa: BLE001
            done.append(e)

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(10)
    assert not th.is_alive(), f"{read} blocked on a FIFO"
    assert done == [None]


@pytest.mark.parametrize("mode", ["poll", "notify"])
def test_watch_skips_a_fifo_ingests_later_files_and_stops_on_sigterm(
        mode: str, nasty_dir: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    d, _ = nasty_dir
    (d / "real.jsonl").rename(tmp_path / "later.jsonl")
    (d / "link.jsonl").unlink()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    args = [sys.executable, "-m", "kb", "watch", "--json", "--debounce", "100",
            "--db", str(tmp_path / "kb.duckdb"), str(d)]
    if mode == "poll":
        args[4:4] = ["--poll", "0.3"]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            stdin=subprocess.PIPE)
    sel = selectors.DefaultSelector()
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    sel.register(fd, selectors.EVENT_READ)
    events: list[dict] = []
    buf = bytearray()

    def wait_for(pred, timeout: float = 60) -> dict:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for ev in events:
                if pred(ev):
                    return ev
            if sel.select(0.5):
                buf.extend(os.read(fd, 65536))
                while b"\n" in buf:
                    line, _, rest = bytes(buf).partition(b"\n")
                    buf[:] = rest
                    events.append(json.loads(line))
        raise AssertionError(f"not seen; events: {events}")

    try:
        wait_for(lambda e: e["event"] == "not_taken" and e["path"].endswith("fifo.jsonl"))
        time.sleep(0.5)
        shutil.copyfile(tmp_path / "later.jsonl", d / "later.jsonl")
        ev = wait_for(lambda e: e["event"] == "ingested")
        assert ev["sessions"][0]["new_messages"] == 18
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    skipped = {Path(e["path"]).name for e in events if e["event"] == "not_taken"}
    assert {"fifo.jsonl", "zero.jsonl", "sock", "loop-a", "up"} <= skipped, skipped
