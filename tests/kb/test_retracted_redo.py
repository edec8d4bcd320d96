"""A change the agent turns away from before anything tested it is retracted; the same
file written again at once with nearly every line the change wrote is an edit redone (a
slip), whichever session or language."""

from __future__ import annotations

from kb.graph.episodes import Said, Step, retracted_episodes

_NAV = frozenset({"<?php", "namespace k1lib\\html\\bootstrap;", "class nav extends ul {",
                  "public function __construct($class = 'nav') {", "parent::__construct();",
                  "$this->set_class($class, true);", "}", "return $this;"} |
                 {f"// item {i}" for i in range(12)})


def _write(o: int, wrote: frozenset[str], tool: str = "write") -> Step:
    return Step("s", o, f"{tool} nav.php", True, False, False, None, target="bootstrap/nav.php",
                wrote=wrote)


def test_a_file_written_again_at_once_nearly_as_it_was_is_no_retraction() -> None:
    # k1.lib-bootstrap__session-export.json (opencode, shared) #594-#595: "The edit didn't
    # work correctly - it seems it left part of the old file. Let me just write the
    # complete correct file", and the verdict's own write of nav.php
    steps = [_write(594, _NAV | {"* @link https://getbootstrap.com/docs/5.3/components/"}),
             _write(595, _NAV | {"*/"})]
    said = [Said("s", 595, "assistant", "The edit didn't work correctly - it seems it left "
                 "part of the old file.", "dead-end")]
    assert retracted_episodes(steps, said) == []


def test_a_change_given_up_and_the_file_changed_otherwise_is_retracted() -> None:
    # uicomponents__session-export.json (opencode, shared) #132-#133: an edit, then "that
    # probably won't fix the issue since the defaults are still coming from the
    # destructuring", and an edit of other lines of the same file
    file = "ui/starfall-portfolio-landing.tsx"
    steps = [Step("s", 132, "edit landing.tsx", True, False, False, None, target=file,
                  wrote=frozenset({"const hero = data.hero ?? defaultData.hero;"})),
             Step("s", 133, "edit landing.tsx", True, False, False, None, target=file,
                  wrote=frozenset({"const hero = data.hero ?? defaultData.hero!;"}))]
    said = [Said("s", 133, "assistant", "Hmm, that probably won't fix the issue since the "
                 "defaults are still coming from the destructuring.", "dead-end")]
    [found] = retracted_episodes(steps, said)
    assert found.how == "retracted" and found.first == 132 and found.ended == 133
