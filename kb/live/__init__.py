"""Live knowledge for the agent at work: ``logkb watch`` and ``logkb mcp``.

* :mod:`kb.live.answers` compact, cited answers (search, dead ends, why, untested,
  handoff, events) for a caller that is itself an agent; each opens the knowledge
  base read-only for the moment it reads and closes it again.
* :mod:`kb.live.mcp`     a Model Context Protocol server over stdio exposing them
  as read-only tools.
* :mod:`kb.live.watch`   follows transcript stores and ingests what lands.

Concurrency: DuckDB lets one process write a file and then no other process can
open it at all.  Every long-lived process here therefore holds the file only in
bursts: ``watch`` opens it read-write for one ingest and closes it, ``mcp`` opens it
read-only per tool call, the TUI leases it (:mod:`kb.lease`).  Whoever finds it
busy retries for ``$LOGKB_LOCK_TIMEOUT`` seconds (15 by default).
"""
