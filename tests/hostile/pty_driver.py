"""Run several ``logkb`` commands in one process whose stdout and stderr are a terminal
(the test starts it on a pseudo-terminal): ``python -m tests.hostile.pty_driver 'JSON'``
with a JSON list of argument lists.  Each command's output ends with a marker line so the
test can tell them apart; one process saves each command's start-up."""

from __future__ import annotations

import sys

import orjson


def main() -> None:
    from kb.cli import cli

    for i, args in enumerate(orjson.loads(sys.argv[1])):
        try:
            cli.main(args, prog_name="logkb", standalone_mode=False)
        except SystemExit:
            pass
        except Exception as e:  # noqa: BLE001 - the test reads what it says
            sys.stderr.write(f"driver: {type(e).__name__}: {e!r}\n".encode(
                "ascii", "backslashreplace").decode())
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout.write(f"\n@@@ end {i} @@@\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
