"""The kinds of events, tool-call categories, statuses and prose classes.

Plain enums without pydantic: :mod:`logparse.models` (the validated models the
deriver and tests use) and :mod:`kb.records` (the values the knowledge base's
read path returns) both use them.
"""

from __future__ import annotations

from enum import StrEnum


class EventKind(StrEnum):
    PROMPT = "prompt"
    COMMAND = "command"
    RESULT = "result"
    DECISION = "decision"
    TODO = "todo"
    SUBAGENT = "subagent"
    ERROR = "error"
    COMPACTION = "compaction"
    ATTACHMENT = "attachment"
    RAW = "raw"
    STAT = "stat"
    CONTEXT = "context"
    """Text the agent's harness sent the model, not the user's words (a system message, a
    background task's report, a notice): the parts of a ``system`` message."""


class Category(StrEnum):
    """What a tool call does, decided from the tool and, for bash, the parsed command."""

    SEARCH = "search"
    IMPORT_CHECK = "import-check"
    PACKAGE_QUERY = "package-query"
    INSTALL = "install"
    LAUNCH = "launch"
    BENCHMARK = "benchmark"
    BUILD = "build"
    KILL = "kill"
    FILE_EDIT = "file-edit"
    FILE = "file"
    TEST = "test"
    LINT = "lint"
    TYPECHECK = "typecheck"
    GIT = "git"
    PACKAGE = "package"
    HTTP = "http"
    RUN = "run"
    DEPLOY = "deploy"
    TODO = "todo"
    SUBAGENT = "subagent"
    RESEARCH = "research"
    OTHER = "other"


class Status(StrEnum):
    COMPLETED = "completed"
    ERROR = "error"
    ABORTED = "aborted"
    INTERRUPTED = "interrupted"


class ProseClass(StrEnum):
    PLAN = "plan"
    OBSERVATION = "observation"
    CONCLUSION = "conclusion"
    PIVOT = "pivot"
    DEAD_END = "dead-end"
    DECISION = "decision"


TIMED_OUT_ON_PROMPT = "Timed out waiting for interactive input"
"""The error signature of a run the timeout cut while the program sat at a prompt: it
needs a terminal (a picker, a confirmation, a password), so the same call would hang
every time. Here, not in :mod:`logparse.signals`, so the graph reads it without loading
the signature rules."""
