"""The most specific error line of a failed run (logparse.errorline)."""

from __future__ import annotations

import pytest

from logparse.errorline import (
    CANCELLED_BY_SIBLING,
    ERROR_LINES,
    READ,
    TIDY,
    cancelled_by,
    rank,
    readable,
    says_more,
    specific_line,
)


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


def test_a_powershell_error_record_gives_its_message() -> None:
    # uicomponents-wordpress (opencode, shared) #82: PowerShell 7's record: the type, the
    # script's line behind a gutter, the «~~~» under it, then the message
    out = ("\x1b[31;1mMethodInvocationException: \x1b[0m\n\x1b[31;1mLine |\x1b[0m\n"
           "\x1b[31;1m   2 | \x1b[0m $content.Substring(0, [Math]::Min(100, $content.Length))\n"
           "\x1b[31;1m     | \x1b[31;1m ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\x1b[0m\n"
           "\x1b[31;1m\x1b[31;1m     | Exception calling \"Substring\" with \"2\" argument(s): "
           "\"Index and length must refer to a location within the string. (Parameter "
           "'length')\"\x1b[0m\n")
    line = specific_line(out)
    assert line == ("Exception calling \"Substring\" with \"2\" argument(s): \"Index and "
                    "length must refer to a location within the string. (Parameter 'length')\"")
    # the signature names only the type: the cause reads type and message
    assert says_more("MethodInvocationException", line) == f"MethodInvocationException: {line}"
    # #374: the same record on a property
    assert specific_line("InvalidOperation: \nLine |\n   1 |  $r.meta\n     |  ~~~~~~~\n"
                         "     | Property \"meta\" cannot be found.\n") == \
        "Property \"meta\" cannot be found."


def test_a_signature_with_its_message_needs_no_line() -> None:
    assert says_more("TypeError: fetch failed", "TypeError: fetch failed") is None
    assert says_more("Timed out", "the command ran into its timeout") is None
    assert says_more("ModuleNotFoundError", "ModuleNotFoundError: No module named 'x'") == \
        "ModuleNotFoundError: No module named 'x'"
    assert says_more("MethodInvocationException", "MethodInvocationException:") is None
    assert says_more("MethodInvocationException", None) is None
    # a Markdown table row is no record's gutter
    assert specific_line("| a | b |\n| - | - |\nerror: x\n") == "error: x"


def test_a_call_cancelled_beside_a_failure_takes_its_error() -> None:
    # conversacion-act1-pln (Claude Code, tune) ordinal 3: two Bash calls in one message;
    # the first failed, Claude Code cancelled the second before it ran
    cancel = ("<tool_use_error>Cancelled: parallel tool call Bash(cd \"/Users/francobertoldi/"
              "Library/CloudS…) errored</tool_use_error>")
    assert CANCELLED_BY_SIBLING.search(cancel)
    assert cancelled_by(cancel, "python3 import", "ModuleNotFoundError: No module named "
                        "'openpyxl'") == ("cancelled: the parallel call `python3 import` "
                                          "failed first (ModuleNotFoundError: No module "
                                          "named 'openpyxl')")
    # any other error is its own cause
    assert cancelled_by("<tool_use_error>File has not been read yet.</tool_use_error>",
                        "python3 import", "x") is None
    assert cancelled_by(None, "python3 import", "x") is None


@pytest.mark.parametrize("row", TIDY, ids=lambda r: r.name)
def test_every_tidy_row_reads_its_real_example(row) -> None:  # type: ignore[no-untyped-def]
    assert row.example and row.source, f"{row.name}: a row needs a real example"
    assert row.pattern.search(row.example)
    assert readable(row.example) == row.tidied


def test_tidying_keeps_what_says_what_went_wrong() -> None:
    # a Windows path's «\n» is no newline; a path that is no code location stays
    assert readable(r"Error: cannot open C:\Users\nina\x.txt") == \
        r"Error: cannot open C:\Users\nina\x.txt"
    assert readable("EACCES: permission denied in /usr/lib/node_modules") == \
        "EACCES: permission denied in /usr/lib/node_modules"
    assert readable("PHP Parse error: syntax error, unexpected token \"}\" in /var/www/a.php "
                    "on line 12") == "PHP Parse error: syntax error, unexpected token \"}\""
    # too little would be left: the line stays whole
    assert readable("Error: x in /a/b.php:3") == "Error: x in /a/b.php:3"


def test_a_long_output_is_read_at_its_end_too() -> None:
    # civ6.ch (pi, tune) ordinal 20: psql printed 24 rows (9.5 kB), then why it failed
    row = " 1 | Win a diplomatic victory with Teddy Roosevelt (aka get lucky) |  -1 | f\n"
    out = (" id | description | difficulty | disabled\n----+-------------+------------+---------\n"
           + row * 120 + "(24 rows)\n\nERROR:  missing FROM-clause entry for table \"p\"\n"
           "LINE 1: SELECT p.id, p.name, p.achievement_bitstring, p.achievement_...\n"
           "               ^\n\n\nCommand exited with code 1\n")
    assert len(out) > 2 * READ
    assert specific_line(out) == "ERROR:  missing FROM-clause entry for table \"p\""
    # and at its start: the first error of a long log still wins its rank
    assert specific_line("fatal: bad object HEAD\n" + "progress line\n" * 2000) == \
        "fatal: bad object HEAD"
