"""Open only regular files: a FIFO, a device or a socket among transcripts must not hang
or feed an ingest forever.

:func:`refusal` says why a path is not read (``os.stat`` before any open, so a device is
never opened); :func:`open_regular` opens with ``O_NONBLOCK`` (a FIFO without a writer
opens at once instead of blocking) and checks the opened file with ``fstat``, which
closes the race of a file replaced between the check and the open.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a directory"))


class NotRegular(OSError):
    """The path is not a regular file (``reason`` says what it is)."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


def kind(mode: int) -> str | None:
    """What a non-regular file is (``None`` for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def refusal(path: str | Path) -> str | None:
    """Why ``path`` is not read as a file (``None``: a regular file, read it).  A symlink
    is followed; a loop, a dangling link or a target that is not a regular file is a
    refusal that names the target."""
    p = str(path)
    try:
        st = os.stat(p)
    except OSError as e:
        if os.path.islink(p):
            if e.errno == errno.ELOOP:
                return "a symlink loop: not read"
            return f"a dangling symlink to {os.readlink(p)}: not read"
        return f"unreadable: {e.strerror or e}"
    what = kind(st.st_mode)
    if what is None:
        return None
    if os.path.islink(p):
        return f"a symlink to {os.path.realpath(p)}, which is {what}: not read"
    return f"{what}, not a regular file: not read"


def link_target(path: str | Path) -> str | None:
    """Where a symlink leads (its resolved path), ``None`` for a path that is no symlink."""
    p = str(path)
    return os.path.realpath(p) if os.path.islink(p) else None


def open_regular(path: str | Path) -> BinaryIO:
    """``path`` opened for binary reading, if it is a regular file; :class:`NotRegular`
    otherwise (raised before any open for what ``os.stat`` already tells)."""
    why = refusal(path)
    if why is not None and not why.startswith("unreadable"):
        raise NotRegular(path, why)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        what = kind(os.fstat(fd).st_mode)
        if what is not None:
            raise NotRegular(path, f"{what}, not a regular file: not read")
        return os.fdopen(fd, "rb")  # still O_NONBLOCK: a /proc file with nothing to say
        # fails its read instead of waiting (a regular file's reads never block)
    except BaseException:
        os.close(fd)
        raise
