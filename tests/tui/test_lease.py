"""``kb.lease``: the TUI holds the file only in bursts, so another process can write."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kb.lease import KbLease
from kb.store import KbMissing

WRITE = ("import duckdb, sys\n"
         "try:\n"
         "    duckdb.connect(sys.argv[1]).close()\n"
         "except duckdb.IOException as e:\n"
         "    print('locked', e); sys.exit(5)\n")


def other_process_can_write(db: Path) -> bool:
    r = subprocess.run([sys.executable, "-c", WRITE, str(db)], capture_output=True, text=True)
    return r.returncode == 0


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(KbMissing):
        KbLease(tmp_path / "nope.duckdb")


def test_read_holds_the_file_then_lets_go_when_idle(rw_db: Path) -> None:
    lease = KbLease(rw_db, idle=0.2)
    with lease.read() as store:
        assert store.conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 2
        assert lease.held
        assert not other_process_can_write(rw_db)  # DuckDB: one writer, no readers meanwhile
    assert lease.held  # still open for the next burst...
    time.sleep(0.5)
    assert not lease.held  # ...and released once idle
    assert other_process_can_write(rw_db)
    with lease.read() as store:  # reopens on demand
        store.conn.execute("SELECT 1").fetchone()
    assert lease.opens == 2
    lease.close()


def test_threads_share_one_connection_with_private_cursors(rw_db: Path) -> None:
    lease = KbLease(rw_db, idle=5)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                with lease.read() as store:
                    store.conn.execute("SELECT count(*) FROM calls").fetchone()
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert lease.opens == 1
    lease.close()


def test_write_is_exclusive_and_readers_reopen(rw_db: Path) -> None:
    lease = KbLease(rw_db, idle=5)
    with lease.read() as store:
        store.conn.execute("SELECT 1").fetchone()
    with lease.write() as store:
        assert not store.read_only
        store.conn.execute("INSERT INTO annotations (session_id, ordinal, kind, value) "
                           "VALUES ('s', 1, 'note', 'x')")
    with lease.read() as store:
        assert store.read_only
        assert store.conn.execute("SELECT count(*) FROM annotations WHERE session_id = 's'"
                                  ).fetchone()[0] == 1
    lease.close()


def test_busy_file_is_reported_and_waited_for(rw_db: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time\n"
         "c = duckdb.connect(sys.argv[1]); print('held', flush=True); time.sleep(1.0)",
         str(rw_db)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    told: list[str] = []
    lease = KbLease(rw_db, idle=0, wait=10, on_busy=told.append)
    t0 = time.monotonic()
    with lease.read() as store:
        store.conn.execute("SELECT 1").fetchone()
    holder.wait()
    assert told and "waiting" in told[0]
    assert time.monotonic() - t0 >= 0.3
    assert not lease.held  # idle=0: released right after the burst


def test_only_another_processes_writes_are_news(rw_db: Path) -> None:
    """What the lease wrote itself (and the checkpoint of closing) is never news; a write
    by another process while the file was released is, once."""
    lease = KbLease(rw_db, idle=0)
    assert not lease.changed_elsewhere()
    with lease.write() as store:  # our own write: a table the file did not have
        store.conn.execute("CREATE TABLE ux_probe AS SELECT 1 AS x")
    with lease.read() as store:
        store.conn.execute("SELECT count(*) FROM ux_probe").fetchone()
    assert not lease.changed_elsewhere()
    w = ("import duckdb, sys\n"
         "c = duckdb.connect(sys.argv[1]); c.execute('CREATE TABLE ux_other AS SELECT 2 AS y')\n"
         "c.close()\n")
    subprocess.run([sys.executable, "-c", w, str(rw_db)], check=True, capture_output=True)
    assert lease.changed_elsewhere()
    assert not lease.changed_elsewhere()  # said once
    subprocess.run([sys.executable, "-c", w.replace("ux_other", "ux_third"), str(rw_db)],
                   check=True, capture_output=True)
    with lease.read() as store:  # opened after that write, before any look at the stamp
        store.conn.execute("SELECT count(*) FROM ux_third").fetchone()
    assert lease.changed_elsewhere()
