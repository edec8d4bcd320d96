"""Replay: re-run a campaign's recorded commands and say what changed.

One module per concern, so the boundary of what can touch a machine is visible:

* :mod:`kb.replay.hostmap`  where recorded hosts' commands run now (``--host-map``, config);
* :mod:`kb.replay.plan`     pure planning: parse, classify, map, rewrite, decide run/skip;
* :mod:`kb.replay.sandbox`  the bubblewrap wall around what runs, here and on targets;
* :mod:`kb.replay.sshexec`  running: ssh connection sharing, timeouts, output and memory bounds;
* :mod:`kb.replay.compare`  normalisation, verdicts and their plain-words explanations;
* :mod:`kb.replay.run`      the run itself (steps, launches, cleanup), records and history.
"""
