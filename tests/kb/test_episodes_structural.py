"""Episode rules fed by the structural signals (kb.graph.episodes)."""

from __future__ import annotations

from kb.graph.episodes import (
    Said,
    Step,
    api_error_episodes,
    chain_key,
    episodes,
    rejected_episodes,
    replaced_run_episodes,
)


def _run(o: int, cmd: str, failed: bool, key: str = "", **kw) -> Step:  # type: ignore[no-untyped-def]
    return Step("s", o, key or cmd.split()[0], False, True, failed, kw.pop("sig", None),
                command=cmd, **kw)


def test_a_url_run_another_way_replaces_the_failed_way() -> None:
    url = "curl -fsSL https://www.solana.new/setup.sh | bash"
    steps = [_run(8, f'bash -lc "{url}"', True, key="bash curl",
                  failure="execvpe(/bin/bash) failed: No such file or directory"),
             _run(47, f"& 'C:\\Program Files\\Git\\bin\\bash.exe' -lc \"{url}\"", False,
                  key="bash.exe curl")]
    (f,) = replaced_run_episodes(steps)
    assert f.ordinals() == {8, 47} and "execvpe" in f.cause_text


def test_a_slip_fixed_at_the_next_call_is_no_dead_end() -> None:
    steps = [_run(200, "curl -sL http://h:8882/p | python -c x", True, key="curl h:8882/p",
                  failure="Showcase"),
             _run(201, "curl -sL http://h:8882/p -o out.json", False, key="curl h:8882/p2")]
    assert replaced_run_episodes(steps) == []


def test_a_flag_value_does_not_split_a_target() -> None:
    a = _run(1, "cargo test -p cfo_oracle", True, key="cargo test cfo_oracle")
    b = _run(2, "cargo test --manifest-path /a/Cargo.toml", True, key="cargo test cargo.toml")
    c = _run(3, "npm install left-pad", True, key="npm install left-pad")
    assert chain_key(a) == chain_key(b) == "cargo test"
    assert chain_key(c) == "npm install left-pad"


def test_a_rejection_carries_what_the_user_said() -> None:
    steps = [Step("s", 5, "exitplanmode", False, False, False, None, True,
                  user_said="I want the output to be index.mjs")]
    (f,) = rejected_episodes(steps)
    assert f.how == "rejected" and "index.mjs" in f.cause_text


def test_a_stopped_run_takes_the_users_next_message() -> None:
    steps = [_run(75, "cargo test", True, sig="aborted by user after 33.4s", interrupted=True)]
    said = [Said("s", 77, "user", "do that for kosh ai", None)]
    (f,) = rejected_episodes(steps, said)
    assert f.how == "interrupted" and "kosh" in f.cause_text and "aborted" in f.cause_text
    assert {75, 77} <= f.ordinals()


def test_a_provider_error_that_ends_the_work_is_a_dead_end() -> None:
    steps = [Step("s", 162, "edit", True, False, False, None, target="discord.ts")]
    said = [Said("s", 161, "user", "drop the icons", None),
            Said("s", 164, "assistant", "APIError: You've hit your limit", "api-error")]
    (f,) = api_error_episodes(steps, said)
    assert f.ordinals() == {161, 162, 164} and "limit" in f.cause_text
    # the agent going on by itself after the error: a hiccup
    later = steps + [Step("s", 165, "edit", True, False, False, None, target="x")]
    assert api_error_episodes(later, said) == []
    assert any(e.how == "api-error" for e in episodes(steps, said))
