"""Generate a large opencode session for the ingest benchmark.

    python bench/gen_session.py --messages 100000 --form jsonl  bench/data/session-100k.jsonl
    python bench/gen_session.py --messages 10000  --form export bench/data/export-10k.json

The session is the Blackwell campaign's filler routine (``fixtures.blackwell.filler``) written by
``fixtures.opencode_writer``: realistic output sizes (mostly 0.1-3 KB, some 10-30 KB logs),
~35 steps per user turn, deterministic for a given ``--seed``. ``jsonl`` is one ``{info, parts}``
message per line; ``export`` is the ``opencode export`` JSON. Messages are written as each turn
completes, so memory stays flat however long the session is.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fixtures.blackwell import campaign  # noqa: E402
from fixtures.blackwell.filler import INITIAL_FILES, Filler  # noqa: E402
from fixtures.blackwell.story import GOAL_PROMPT, T0  # noqa: E402
from fixtures.opencode_builder import BuildContext, SessionBuilder  # noqa: E402
from fixtures.opencode_writer import dumps_compact, dumps_pretty  # noqa: E402

_CHUNK = 500


def generate(messages: int, seed: int) -> tuple[SessionBuilder, Iterator[dict]]:
    """The builder and an iterator over the session's final messages, oldest first."""
    if messages < 2:
        raise ValueError("a session needs at least 2 messages (prompt and answer)")
    rng = random.Random(seed)
    ctx = BuildContext(rng, directory=campaign.WORKDIR, project_id=campaign.PROJECT_ID)
    ctx.files.update(INITIAL_FILES)
    builder = SessionBuilder(ctx, title=campaign.TITLE, start_ms=T0)
    filler = Filler(builder, random.Random(seed + 1))

    def play() -> Iterator[dict]:
        builder.user(GOAL_PROMPT, at=T0 + 412)
        remaining = messages - 2
        while remaining > 0:
            n = min(_CHUNK, remaining)
            filler.fill(n)
            remaining -= n
            # Messages before the open turn's user message are final: hand them out and drop them.
            last_user = max(
                i for i, m in enumerate(builder.messages) if m["info"]["role"] == "user"
            )
            yield from builder.messages[:last_user]
            del builder.messages[:last_user]
        filler.stop_step()
        yield from builder.messages
        builder.messages.clear()

    return builder, play()


def write_jsonl(messages: int, seed: int, out: Path) -> None:
    _builder, stream = generate(messages, seed)
    with out.open("wb") as fh:
        for msg in stream:
            fh.write(dumps_compact({"info": msg["info"], "parts": msg["parts"]}) + b"\n")


def write_export(messages: int, seed: int, out: Path) -> None:
    """``opencode export`` bytes: messages are staged first because the info holds totals."""
    builder, stream = generate(messages, seed)
    with tempfile.TemporaryFile(dir=out.parent) as staged:
        first = True
        for msg in stream:
            text = dumps_pretty({"info": msg["info"], "parts": msg["parts"]}, newline=False)
            staged.write(b"" if first else b",\n")
            staged.write(b"\n".join(b"    " + line for line in text.split(b"\n")))
            first = False
        head = dumps_pretty({"info": builder.info(), "messages": []}, newline=False)
        assert head.endswith(b'"messages": []\n}')
        staged.seek(0)
        with out.open("wb") as fh:
            fh.write(head[: -len(b"[]\n}")] + b"[\n")
            while chunk := staged.read(1 << 20):
                fh.write(chunk)
            fh.write(b"\n  ]\n}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, required=True, help="number of messages")
    parser.add_argument("--form", choices=("jsonl", "export"), required=True)
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("out", type=Path, help="output file")
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    writer = write_jsonl if args.form == "jsonl" else write_export
    writer(args.messages, args.seed, args.out)
    size = args.out.stat().st_size
    print(
        f"{args.out}: {args.messages} messages, {size / 1e6:.1f} MB "
        f"in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
