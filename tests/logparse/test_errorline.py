"""The most specific error line of a failed run (logparse.errorline)."""

from __future__ import annotations

import pytest

from logparse.errorline import ERROR_LINES, rank, specific_line


@pytest.mark.parametrize("row", ERROR_LINES, ids=lambda r: r.name)
def test_every_row_reads_its_real_example(row) -> None:  # type: ignore[no-untyped-def]
    assert row.example and row.source, f"{row.name}: a row needs a real example"
    assert rank(row.example) == (row.rank, row.name)


def test_the_error_over_the_advice_after_it() -> None:
    # uicomponents-wordpress (opencode, shared) #32: PowerShell 7 on a missing program
    out = ("\x1b[31;1mwebfetch: \x1b[31;1mThe term 'webfetch' is not recognized as a name of "
           "a cmdlet, function, script file, or executable program.\x1b[0m\r\n\x1b[31;1m"
           "\x1b[31;1mCheck the spelling of the name, or if a path was included, verify that "
           "the path is correct and try again.\x1b[0m\r\n")
    assert specific_line(out) == ("webfetch: The term 'webfetch' is not recognized as a name "
                                  "of a cmdlet, function, script file, or executable program.")


def test_the_message_over_the_exit_status_and_the_frames() -> None:
    # k1 (opencode, shared): gh repo create over ssh
    out = ("Host key verification failed.\r\nfatal: Could not read from remote repository.\n\n"
           "Please make sure you have the correct access rights\nand the repository exists.\n"
           "failed to run git: exit status 128\n")
    assert specific_line(out) == "fatal: Could not read from remote repository."
    # soulpass (Codex, shared) #299: the error, not the stack frames under it
    out = ("Error: failed to get info about account CQW3: TypeError: fetch failed\n"
           "    at Connection.getAccountInfo (/x/index.cjs.js:6378:13)\n"
           "    at async [eval]:1:278\n")
    assert specific_line(out) == "Error: failed to get info about account CQW3: TypeError: fetch failed"
    # a bare exit status only when nothing says more
    assert specific_line("building…\nfailed to run git: exit status 128\n") == \
        "failed to run git: exit status 128"


def test_no_error_line_is_the_last_line_that_is_no_advice() -> None:
    assert specific_line("warning: x is deprecated\nsomething went wrong\n") == \
        "something went wrong"
    assert specific_line("  \n") is None


def test_a_usage_synopsis_is_no_cause() -> None:
    # k1 (opencode, shared) #554: BSD cat refuses GNU's -A, then prints its synopsis
    assert specific_line("cat: illegal option -- A\nusage: cat [-belnstuv] [file ...]\n") == \
        "cat: illegal option -- A"
    # a usage alone is still all the run said
    assert specific_line("usage: cat [-belnstuv] [file ...]\n") == \
        "usage: cat [-belnstuv] [file ...]"


def test_what_failed_and_why_over_the_lines_it_quotes() -> None:
    # soulpass (Codex, shared) #314: apply_patch quotes the lines it did not find
    out = ("apply_patch verification failed: Failed to find expected lines in /x/route.ts:\n"
           "    const USDC_MINT = new PublicKey(\n"
           "      process.env.NEXT_PUBLIC_USDC_MINT ?? \"Gh9Zw\"\n"
           "    );\n      USDC_MINT,\n")
    assert specific_line(out) == \
        "apply_patch verification failed: Failed to find expected lines in /x/route.ts:"
