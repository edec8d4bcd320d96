"""The ``logkb`` command line (``logkb`` and ``python -m kb`` both start here).

``logkb --version`` and ``logkb --help`` answer without loading click and every
command module (about 15x the start-up of Python itself): the version is
:data:`kb.__version__`, and the help is the text click printed the last time,
cached under ``$XDG_CACHE_HOME/logkb/`` and keyed by the command modules'
size and mtime, the version and the terminal width, so a changed command never
shows a stale help.  Everything else goes to the click group :data:`kb.cli.cli`.
"""

from __future__ import annotations

import os
import sys

PROG = "logkb"


def _help_cache() -> str | None:
    """Where the help text of this build and terminal width is cached (plain ``os``: even
    pathlib costs a measurable part of this start-up)."""
    import shutil
    import zlib

    from kb import __version__

    cli_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cli")
    try:
        stamp = []
        for name in sorted(os.listdir(cli_dir)):
            if name.endswith(".py"):
                st = os.stat(os.path.join(cli_dir, name))
                stamp.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    except OSError:
        return None
    width = min(shutil.get_terminal_size().columns, 80)  # click's rule for help width
    key = f"{__version__}|{width}|{'|'.join(stamp)}"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "logkb", f"help-{zlib.crc32(key.encode()):08x}.txt")


def main() -> None:
    """Run ``logkb`` with ``sys.argv``."""
    args = sys.argv[1:]
    if os.path.basename(sys.argv[0]) == PROG and len(args) == 1:
        if args[0] == "--version":
            from kb import __version__

            sys.stdout.write(f"{PROG}, version {__version__}\n")
            return
        if args[0] == "--help":
            cache = _help_cache()
            if cache is not None:
                try:
                    with open(cache, encoding="utf-8") as fh:
                        sys.stdout.write(fh.read())
                    return
                except OSError:
                    pass
                text = render_help()
                try:
                    os.makedirs(os.path.dirname(cache), exist_ok=True)
                    tmp = f"{cache}.{os.getpid()}.tmp"
                    with open(tmp, "w", encoding="utf-8") as fh:
                        fh.write(text)
                    os.replace(tmp, cache)
                except OSError:
                    pass
                sys.stdout.write(text)
                return
    from kb.cli import cli

    # one name in every usage line and hint, as in every error (``logkb: error:``) and
    # example: click would name ``python -m kb`` when a wrapper script runs the module
    # (``python -m kb timeline -h`` named a command the user never typed)
    try:
        cli(prog_name=PROG)
    except Exception as e:  # a bug, or what nothing expected: one line, where it happened
        if os.environ.get("LOGKB_DEBUG"):
            raise
        sys.stderr.write(internal_error(e))
        sys.exit(1)


def internal_error(e: BaseException) -> str:
    """What ``logkb`` says of an exception nothing handled: ``logkb: error: ValueError:
    could not convert string to float: 'abc' (kb/store.py:160)`` (the innermost line of
    logkb's own code it passed through) and how to see the traceback, instead of the
    traceback (``LOGKB_LOCK_TIMEOUT=abc`` printed 30 lines)."""
    import traceback

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = traceback.extract_tb(e.__traceback__)
    mine = [f for f in frames if f.filename.startswith(root + os.sep)] or frames
    where = ""
    if mine:
        f = mine[-1]
        name = os.path.relpath(f.filename, root) if f.filename.startswith(root) else f.filename
        where = f" ({name}:{f.lineno})"
    what = " ".join(str(e).split()) or "(no message)"
    return (f"{PROG}: error: {type(e).__name__}: {what}{where}\n"
            f"hint: LOGKB_DEBUG=1 {PROG} … shows the traceback (a bug? report it with it)\n")


def render_help() -> str:
    """What ``logkb --help`` prints, rendered by click."""
    import click

    from kb.cli import cli

    with click.Context(cli, info_name=PROG, **cli.context_settings) as ctx:
        return ctx.get_help() + "\n"


if __name__ == "__main__":
    main()
