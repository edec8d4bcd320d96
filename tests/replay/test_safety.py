"""Safety: destructive commands cannot be smuggled past the classifier; verdict rules."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kb.cli import cli
from kb.replay.compare import judge, normalise, pair_measurements
from kb.replay.hostmap import build_host_map
from logparse.models import Measurement
from logparse.shell import classify_safety, parse_command
from tests.replay.conftest import RECORDED_HOST, Guard, make_session
from tests.replay.test_plan import plan_for

TARGET = "root@127.0.0.1:2222"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def smuggled(sentinel: str) -> list[str]:
    s = sentinel
    h = f"ssh root@{RECORDED_HOST}"
    return [
        f"{h} 'ls /tmp; rm -f {s}'",                         # ;
        f"{h} 'ls /tmp && rm -f {s}'",                       # &&
        f"{h} 'ls /nonexistent || rm -f {s}'",               # ||
        f"{h} 'echo $(rm -f {s})'",                          # $(…)
        f"{h} 'echo `rm -f {s}`'",                           # backticks
        f"{h} 'echo rm -f {s} | sh'",                        # a pipe into sh
        f"{h} 'echo rm -f {s} | bash -s'",                   # … into bash -s
        f"{h} 'echo {s} | xargs rm -f'",                     # xargs rm
        f"{h} 'find {Path(s).parent} -name {Path(s).name} -exec rm {{}} ;'",
        f"{h} 'find {Path(s).parent} -name {Path(s).name} -delete'",
        f"{h} \"bash -c 'rm -f {s}'\"",                      # a code string
        f"{h} 'eval \"rm -f {s}\"'",                         # eval
        f"{h} 'cat {s} > /root/logkb-replay-clobbered'",     # a write outside /tmp
        f"{h} 'ls; ssh root@{RECORDED_HOST} \"rm -f {s}\"'",  # inside a nested ssh
        f"ssh root@{RECORDED_HOST} bash -s <<'EOF'\nls /tmp\nrm -f {s}\nEOF",  # heredoc
        f"{h} 'python3 -c \"import os; os.remove(\\\"{s}\\\")\"'",  # python code
        f"{h} 'ls /tmp' ; rm -f {s}",                         # locally, after the ssh
    ]


@pytest.mark.parametrize("index", range(17))
def test_smuggling_is_refused_without_allow_mutating(index: int) -> None:
    cmd = smuggled("/tmp/logkb-sentinel")[index]
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}"], {})
    step = plan_for([cmd], hm, allow=("launch",)).steps[0]
    assert step.action == "skip", (cmd, step.safety, step.safety_reasons)
    assert step.safety in ("mutating", "unknown"), (cmd, step.safety)


def test_smuggled_commands_never_run(tmp_path: Path, config: Path, ssh_guard: Guard) -> None:
    sentinel = tmp_path / "sentinel"
    sentinel.write_text("keep me\n")
    calls = [(c, "", 0) for c in smuggled(str(sentinel))]
    calls.append((f"ssh root@{RECORDED_HOST} 'cat {sentinel}'", "keep me\n", 0))
    db = make_session(tmp_path, calls)
    r = run("replay", "run", "--db", str(db), "--from", "1", "--allow", "launch",
            "--json")
    steps = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(steps) == len(calls)
    ran = [s for s in steps if s["action"] == "run"]
    assert [s["recorded_command"] for s in ran] == [calls[-1][0]]
    assert ran[0]["verdict"] == "same"
    assert sentinel.read_text() == "keep me\n"
    assert not Path("/root/logkb-replay-clobbered").exists()
    assert r.exit_code == 0


def test_fixture_kill_and_launches_need_allow(fixture_db: Path, config: Path,
                                              ssh_guard: Guard) -> None:
    r = run("replay", "run", "--db", str(fixture_db), "--from", "5220", "--to", "5224",
            "--allow", "launch", "--json")
    steps = {s["ordinal"]: s for s in (json.loads(x) for x in r.stdout.splitlines())}
    assert all(s["verdict"] == "skipped" for s in steps.values())
    assert "pkill kills processes" in steps[5220]["reason"]
    assert "--allow mutating" in steps[5221]["reason"]  # its log goes to /root/logs
    assert "--allow unknown" in steps[5224]["reason"]
    assert ssh_guard.ssh_spawns() == []  # nothing to run: no connection either


# ---------------------------------------------------------------------------- verdicts
def _judge(old: str, old_exit: int | None, new: str, new_exit: int | None, *,
           cat: str = "search", cmd: str = "ssh h 'grep x f'", sigs: tuple[str, ...] = (),
           status: str = "completed", timed_out: bool = False) -> object:
    return judge(category=cat, info=parse_command(cmd), command=cmd, old_output=old,
                 old_exit=old_exit, old_status=status, old_signatures=sigs, new_output=new,
                 new_exit=new_exit, timed_out=timed_out, hosts=["10.1.230.174", "127.0.0.1"])


def test_verdicts_and_plain_words() -> None:
    imp = "ssh root@h '/root/ml-env/bin/python3 -c \"import deep_ep; print(deep_ep.__version__)\"'"
    j = _judge("Traceback (most recent call last):\n  File \"<string>\", line 1\n"
               "ModuleNotFoundError: No module named 'deep_ep'\n", 1, "1.2.0\n", 0,
               cat="import-check", cmd=imp, sigs=("ModuleNotFoundError: deep_ep",))
    assert j.verdict == "now-passes" and j.revisit  # type: ignore[attr-defined]
    assert j.explanation.startswith(  # type: ignore[attr-defined]
        "The import check of deep_ep failed with “ModuleNotFoundError: deep_ep” when recorded "
        "and now passes: the conclusion drawn from it may no longer hold")
    assert "dead end" in j.explanation  # type: ignore[attr-defined]

    same = _judge("[2026-11-15 08:13:22] pid 4242 at 0x7f00aa11 used 5 MiB in 1.5 s on "
                  "10.1.230.174\n", 0,
                  "[2027-01-02 10:00:01] pid 99 at 0x7f00bb22 used 7 MiB in 2.5 s on "
                  "127.0.0.1\n", 0)
    assert same.verdict == "same"  # type: ignore[attr-defined]
    changed = _judge("2197: if x\n", 0, "2201: if x\n", 0)
    assert changed.verdict == "changed"  # type: ignore[attr-defined]
    assert "2201: if x" in changed.explanation  # type: ignore[attr-defined]
    fails = _judge("2197: if x\n", 0, "grep: f: No such file or directory\n", 2)
    assert fails.verdict == "now-fails"  # type: ignore[attr-defined]
    answers = _judge("ssh: connect to host 10.1.230.174 port 22: Connection timed out\n", 255,
                     "2197: if x\n", 0)
    assert answers.verdict == "now-answers"  # type: ignore[attr-defined]
    assert answers.recorded_answered is False  # type: ignore[attr-defined]
    aborted = _judge("", None, "ok\n", 0, status="aborted")
    assert aborted.verdict == "now-answers"  # type: ignore[attr-defined]
    unreachable = _judge("2197: if x\n", 0, "root@127.0.0.1: Permission denied (publickey).\n",
                         255)
    assert unreachable.verdict == "now-fails"  # type: ignore[attr-defined]
    assert unreachable.answered is False  # type: ignore[attr-defined]
    timeout = _judge("ok\n", 0, "", None, timed_out=True)
    assert timeout.verdict == "now-fails"  # type: ignore[attr-defined]
    # a grep hit that merely mentions ERROR is not a failure
    grep = _judge("12: raise ValueError('ERROR: bad')\n", 0,
                  "12: raise ValueError('ERROR: bad')\n", 0)
    assert grep.verdict == "same"  # type: ignore[attr-defined]


def test_normalise_and_measurements() -> None:
    a = normalise("Loading 64/64 [02:31<00:00,  2.36s/it] /tmp/tmpab12/x 1.2 GB")
    b = normalise("Loading 64/64 [01:02<00:00,  1.00s/it] /tmp/tmpzz99/x 3.4 GB")
    assert a == b
    pairs = pair_measurements([Measurement(value=82.0, unit="tok/s", label="Output token throughput"),
                               Measurement(value=11.2, unit="ms", label="Median TPOT")],
                              [Measurement(value=89.5, unit="tok/s", label="Output token throughput")])
    assert pairs[0].old == 82.0 and pairs[0].new == 89.5
    assert pairs[0].ratio == pytest.approx(89.5 / 82.0)
    assert pairs[1].new is None and pairs[1].ratio is None
    assert "82 → 89.5 tok/s (1.09×)" in str(pairs[0])


def test_read_tool_is_replayed_as_cat(tmp_path: Path, isolated_home: Path) -> None:
    from fixtures.opencode_builder import BuildContext, SessionBuilder
    from fixtures.opencode_writer import write_jsonl
    from kb.ingest import ingest
    from kb.store import KbStore

    work = tmp_path / "w"
    work.mkdir()
    ctx = BuildContext(random.Random(3), directory=str(work), project_id="cd" * 20)
    ctx.files["notes.md"] = "line one\nline two\n"
    s = SessionBuilder(ctx, title="read", start_ms=1_790_000_000_000)
    s.user("read it")
    s.step("Reading:", [s.read("notes.md")])
    path = write_jsonl(s.tree(), tmp_path / "r.jsonl")
    db = tmp_path / "r.duckdb"
    with KbStore(db) as store:
        ingest(store, [path], graph=False)
    (work / "notes.md").write_text("line one\nline two\n")
    r = run("replay", "run", "--db", str(db), "--from", "1", "--json")
    (step,) = [json.loads(x) for x in r.stdout.splitlines()]
    assert step["run_command"] == "cat -- notes.md" and step["verdict"] == "same", step
    (work / "notes.md").write_text("line one\nline 2\n")
    r = run("replay", "run", "--db", str(db), "--from", "1", "--json")
    (step,) = [json.loads(x) for x in r.stdout.splitlines()]
    assert step["verdict"] == "changed"


@pytest.mark.parametrize(("cmd", "follows"), [
    ("curl -sL http://127.0.0.1:8/", True),
    ("curl -fsSL http://127.0.0.1:8/", True),
    ("curl --location http://127.0.0.1:8/", True),
    ("curl -L --max-redirs 0 http://127.0.0.1:8/", False),
    ("curl -L --max-redirs=3 http://127.0.0.1:8/", True),
    ("curl -L http://127.0.0.1:8/ --no-location", False),
    ("curl -H L -o L http://127.0.0.1:8/", False),
    ("curl http://127.0.0.1:8/ --next -L http://127.0.0.1:9/", True),
    ("curl -L -- http://127.0.0.1:8/", True),
    ("curl -L: http://127.0.0.1:8/", True),
    ("curl -L --max-redirs 0 -- http://127.0.0.1:8/", False),
    ("wget -qO- http://127.0.0.1:8/", True),
    ("wget --max-redirect=0 -qO- http://127.0.0.1:8/", False),
    ("wget --max-redirect 0 http://127.0.0.1:8/", False),
    ("wget -e max_redirect=0 http://127.0.0.1:8/", False),
    ("ssh h 'curl -sL http://127.0.0.1:8/'", True),
    ("bash -c 'wget http://127.0.0.1:8/'", True),
    ("http --follow http://127.0.0.1:8/", True),
    ("curl -s http://127.0.0.1:8/", False),
    ("git ls-remote http://127.0.0.1:8/repo", True),
    ("python3 -c \"import urllib.request as u; u.urlopen('http://127.0.0.1:8/')\"", True),
    ("echo http://127.0.0.1:8/", False),
    ("python3 -m http.server 8000 --bind 127.0.0.1", False),
])
def test_redirect_following_clients_are_named(cmd: str, follows: bool) -> None:
    assert bool(classify_safety(parse_command(cmd)).follows) == follows, cmd
