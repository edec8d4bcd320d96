"""Which structures give measurements and which never do: one row per kind, each with a
real line.

Issue 22 item 5: a measurement comes from a tool result or a stated result, with a unit
and, where one is known, a better side (``kb.handoff.direction``: tests passed up, time
and failures down).  :mod:`logparse.measure` and :mod:`logparse.measure_stated` hold the
rules; this table says what they must make of the structures agents' tools print, kind by
kind, and what they must never take (ids, hashes, line numbers, timestamps, versions,
ports, grep hit counts, token counters, CSS and animation values, ``ls`` entry counts).

* :data:`KINDS`: a text (a tool's output, or prose), the ``(value, unit)`` pairs it must
  give and the values it must not;
* :data:`CALLS`: the same for a whole tool call (:func:`logparse.derive.call_measurements`:
  a ``wc``, a grep, an ``ls``), where the command decides what the output's numbers are.

``tests/logparse/test_measure_kinds.py`` walks both.  A positive row is added only for a
kind seen in two sessions or more (ours, or public logs); every example is a real line,
trimmed, with where it comes from.  Pure data: nothing here runs at ingest.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CALLS", "KINDS", "CallKind", "Kind"]


@dataclass(frozen=True)
class Kind:
    name: str
    kind: str
    """The structure: ``test-runner``, ``build-timing``, ``package-manager``, ``http``,
    ``size``, ``time``, ``count`` (a result's row count), ``price`` (an amount of money), or
    ``noise`` for a row that must give nothing."""
    text: str
    prose: bool
    expect: tuple[tuple[float, str], ...]
    absent: tuple[float, ...]
    source: str


@dataclass(frozen=True)
class CallKind:
    name: str
    kind: str
    tool: str
    category: str | None
    command: str
    output: str
    expect: tuple[tuple[float, str], ...]
    absent: tuple[float, ...]
    source: str
    failed: bool = False
    """The call failed: ``output`` is its error text, the call has no output."""


KINDS: tuple[Kind, ...] = (
    # ------------------------------------------------------------ test runners
    Kind("pytest-summary", "test-runner",
         "======================== 50 passed, 1 warning in 1.15s ========================",
         False, ((50.0, "passed"), (1.15, "s")), (),
         "public pytest run in an agent report, search corpus id 277840138"),
    Kind("vitest-tests", "test-runner", "      Tests  10 passed (10)", False,
         ((10.0, "passed"),), (), "labelled/will-it-rain__claude.jsonl (vitest run)"),
    Kind("cargo-test-result", "test-runner",
         "test result: ok. 29 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; "
         "finished in 0.00s", False, ((29.0, "passed"), (0.0, "failed")), (),
         "claude-code/python-to-rust-port/transcript.jsonl (cargo test)"),
    Kind("maven-surefire", "test-runner",
         "[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.185 s - in "
         "com.example.SuccessTest", False,
         ((3.0, "tests"), (0.0, "failures"), (0.0, "errors"), (0.185, "s")), (),
         "public Maven surefire log, search corpus (mvn test output)"),
    Kind("dotnet-test", "test-runner",
         "Passed!  - Failed:     0, Passed:    12, Skipped:     0, Total:    12, Duration: 1 s",
         False, ((0.0, "failed"), (12.0, "passed"), (1.0, "s")), (),
         "public dotnet test stdout quoted by a parser, search corpus (dotnet test output)"),
    Kind("rspec-summary", "test-runner",
         "Finished in 0.01689 seconds (files took 0.15956 seconds to load)\n"
         "4 examples, 0 failures", False, ((4.0, "tests"), (0.0, "failures"), (0.01689, "s")),
         (), "rspec-3-book/book-code 06-integration-specs/09/sessions/"
             "each_spec_file_success.pml"),
    Kind("minitest-summary", "test-runner",
         "24 runs, 37 assertions, 0 failures, 0 errors, 0 skips", False,
         ((24.0, "tests"), (0.0, "failures"), (0.0, "errors")), (),
         "public Rails agent report (minitest run), search corpus id 37609701724"),
    Kind("jest-tests", "test-runner",
         "FAIL __tests__/deliveryTrackingIntegration.test.ts\n"
         "Tests:       1 failed, 15 passed, 16 total", False,
         ((1.0, "failed"), (15.0, "passed")), (),
         "public agent notes quoting npx jest, search corpus id 71601037193"),
    Kind("jest-time", "test-runner",
         "Test Suites: 1 failed, 1 total\nTests:       1 failed, 1 total\n"
         "Snapshots:   0 total\nTime:        0.88 s\nRan all test suites.", False,
         ((1.0, "failed"), (0.88, "s")), (),
         "public jest run quoted in an issue, search corpus id 16316023853"),
    Kind("go-test-fail", "test-runner",
         "--- FAIL: TestRecentCommitsSummaryTableAlignment (0.00s)\n"
         "    pipeline_history_test.go:313: expected Status column to be PASS, got -\nFAIL\n"
         "FAIL github.com/alimtvnetwork/gitmap-v28/cli/cmdpipeline 0.557s", False,
         ((0.557, "s"),), (313.0,),
         "public CI notes quoting go test ./..., search corpus id 68723125647"),
    Kind("go-test-ok", "test-runner", "--- PASS: TestNewDeck (0.00s)\nPASS\nok      cards   0.219s",
         False, ((0.219, "s"),), (), "public go test output in a comment, search corpus id "
                                     "1066301007"),
    Kind("tsc-found-errors", "test-runner",
         "src/b.ts(10,1): error TS2554: Expected 2 arguments, but got 1.\n\n"
         "Found 2 errors in 2 files.", False, ((2.0, "errors"),), (10.0, 1.0, 2554.0),
         "public tsc output in a test, search corpus id 69878528986"),
    Kind("svelte-check-summary", "test-runner",
         "svelte-check found 5 errors and 2 warnings in 3 files", False,
         ((5.0, "errors"), (2.0, "warnings"), (3.0, "files")), (),
         "pool/civ6.ch__session.jsonl:62 (pi; tsc's 'Found 3 errors in 2 files.' is the same "
         "shape)"),
    Kind("xctest-suite", "test-runner",
         "Test Case 'testWaveProgression' passed (0.000 seconds)\n"
         "Test Suite 'BugDefenseTests' passed at 2025-11-20 13:52:26.789\n"
         "Executed 10 tests, with 0 failures (0 unexpected) in 0.007 seconds", False,
         ((10.0, "tests"), (0.0, "failures"), (0.007, "s")), (2025.0, 20.0, 13.0, 26.789),
         "public agent report quoting swift test (XCTest), search corpus id 67435490736"),
    Kind("swift-testing-run", "test-runner",
         "✔ Test testDownloadIdentityLogsStayHashMasked() passed after 0.028 seconds.\n"
         "✔ Test run with 3 tests in 1 suite passed after 0.029 seconds.", False,
         ((3.0, "tests"), (0.029, "s")), (1.0,),
         "public agent notes quoting swift test (swift-testing), search corpus id 61082639084"),
    # ------------------------------------------------------------ build timings
    Kind("swift-build", "build-timing", "Build complete! (12.25s)", False, ((12.25, "s"),), (),
         "labelled/speakfree__session.jsonl (swift build)"),
    Kind("cargo-finished", "build-timing",
         "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.30s", False,
         ((0.3, "s"),), (), "claude-code/python-to-rust-port/transcript.jsonl"),
    Kind("dotnet-build", "build-timing",
         "$ dotnet build\nBuild succeeded.\n    0 Warning(s)\n    0 Error(s)\n"
         "Time Elapsed 00:01:17.63\nEXIT=0", False,
         ((0.0, "warnings"), (0.0, "errors"), (77.63, "s")), (1.0, 17.63),
         "public agent report quoting dotnet build, search corpus id 71559227280"),
    Kind("vite-built", "build-timing", "\x1b[32m✓ built in 646ms\x1b[39m", False,
         ((646.0, "ms"),), (), "labelled/uicomponents__session-wordpress.json (vite build; "
                               "also uicomponents__session-export.json)"),
    Kind("next-compiled", "build-timing", "✓ Compiled successfully in 2.9s", False,
         ((2.9, "s"),), (), "labelled/soulpass__codex-session.jsonl (next build)"),
    Kind("docker-build", "build-timing",
         "[+] Building 0.7s (8/8) FINISHED\n => [internal] load build definition from Dockerfile",
         False, ((0.7, "s"),), (), "public docker build log, search corpus id 5954666368"),
    Kind("vite-asset-size", "size",
         "dist/assets/hybrid-main-D1pFVoOZ.css   33.86 kB │ gzip:  6.01 kB", False,
         ((33.86, "kB"),), (), "labelled/uicomponents__session-wordpress.json (vite build)"),
    # ------------------------------------------------------------ package managers
    Kind("npm-added", "package-manager", "added 87 packages, and audited 88 packages in 8s",
         False, ((87.0, "packages"), (88.0, "packages"), (8.0, "s")), (),
         "labelled/will-it-rain__claude.jsonl (npm install; also uicomponents)"),
    Kind("bun-installed", "package-manager", "422 packages installed [22.34s]", False,
         ((422.0, "packages"), (22.34, "s")), (),
         "public bun install log in an agent report, search corpus id 66836085209"),
    # ------------------------------------------------------------ HTTP, time
    Kind("http-status-line", "http", "HTTP/1.1 200 OK", False, ((200.0, "HTTP"),), (),
         "curl -I output (labelled/uicomponents__session-wordpress.json)"),
    Kind("curl-fail-status", "http", "curl: (22) The requested URL returned error: 404", False,
         ((404.0, "HTTP"),), (22.0,), "public setup notes quoting curl -f, search corpus id "
                                      "68293080177"),
    Kind("git-https-status", "http",
         "fatal: unable to access 'https://github.com/x/y.git/': The requested URL returned "
         "error: 404", False, ((404.0, "HTTP"),), (),
         "public test fixture of a git clone failure, search corpus id 71146242672"),
    Kind("wget-status", "http",
         "Connecting to github.com (github.com)|20.200.245.247|:443... connected.\n"
         "HTTP request sent, awaiting response... 404 Not Found\n"
         "2025-12-19 14:20:16 ERROR 404: Not Found.", False, ((404.0, "HTTP"),),
         (443.0, 20.0, 2025.0), "public wget log, search corpus id 35225514877"),
    Kind("npm-registry-404", "http",
         "npm error code E404\nnpm error 404 Not Found - GET "
         "https://registry.npmjs.org/@speckle%2fsdk - Not found", False, ((404.0, "HTTP"),), (),
         "public npm install log, search corpus id 17282519459"),
    Kind("python-requests-status", "http",
         "404 Client Error: Not Found for url: https://api.postcodes.io/postcodes/XXX", False,
         ((404.0, "HTTP"),), (), "public README quoting a requests run, search corpus id "
                                 "43670896177"),
    Kind("time-real", "time", "real\t0m1.234s\nuser\t0m0.900s\nsys\t0m0.100s", False,
         ((1.234, "s"),), (), "bash `time` output (public logs)"),
    Kind("gnu-time-verbose", "time",
         "    User time (seconds): 6.96\n    System time (seconds): 0.34\n"
         "    Elapsed (wall clock) time (h:mm:ss or m:ss): 0:07.34\n"
         "    Maximum resident set size (kbytes): 383456\n", False,
         ((6.96, "s"), (7.34, "s"), (383456.0, "KiB")), (383456000.0,),
         "GNU `/usr/bin/time -v` quoted in a Q&A answer, search corpus (pages) "
         "newbedev.com/logging-ram-memory-high-water-mark-of-a-linux-process (also a "
         "stackoverflow.com peak-memory question quoting 'User time (seconds): 16.50')"),
    Kind("spelled-duration", "time",
         "    test_zoneinfo\n\nTotal duration: 4 min 23 sec\nTests result: SUCCESS", False,
         ((263.0, "s"),), (4.0, 23.0),
         "CPython's regrtest summary quoted in a build guide, search corpus id 16483927839 "
         "(also ChampSim's '(Simulation time: 0 hr 14 min 23 sec)', id 14450945199)"),
    Kind("psql-rows", "count",
         "   leader   | games | wins \n------------+-------+------\n Gandhi     |    17 |    7\n"
         " Tomyris    |     6 |    4\n(15 rows)\n\n player_id | category | games | wins \n"
         "-----------+----------+-------+------\n         7 | overall  |    26 |    5 \n"
         "(26 rows)", False, ((15.0, "rows"), (26.0, "rows")), (17.0, 6.0, 7.0),
         "pool/civ6.ch__session.jsonl:52 (pi; psql, several queries in one call: each result's "
         "row count, its cells are data)"),
    Kind("du-h-bare-names", "size",
         " 14M\tnode_modules\n1.4G\tpackages/nextjs/node_modules\n", False,
         ((14.0, "MiB"), (1.4, "GiB")), (),
         "public agent transcript (Claude Code Bash: du -sh node_modules packages/nextjs/"
         "node_modules; the export's '  > ' quote marks trimmed), search corpus id "
         "66581061236"),
    Kind("du-h-dist", "size", "37\n39.6M\tnode_modules\n156.0K\tdist\n", False,
         ((39.6, "MiB"), (156.0, "KiB")), (37.0,),
         "public Docker notes (ls node_modules | wc -l; du -sh node_modules; du -sh dist), "
         "search corpus id 70208144169"),
    Kind("powershell-length", "size", "Name      Length\r\n----      ------\r\nindex.mjs   4396",
         False, ((4396.0, "B"),), (), "labelled/will-it-rain__claude.jsonl:135 (PowerShell "
                                      "Get-Item | Select-Object Name, Length)"),
    # ------------------------------------------------------------ never a measurement
    Kind("version", "noise", "▲ Next.js 16.1.6 (webpack)", False, (), (16.1, 16.0, 6.0),
         "labelled/soulpass__codex-session.jsonl (next build header)"),
    Kind("port-in-url", "noise", "Local:   http://localhost:8882/showcase/", False, (),
         (8882.0,), "labelled/uicomponents__session-wordpress.json"),
    Kind("grep-line-number", "noise",
         'app/api/payroll/commit/route.ts:101:        console.error("[PayrollCommit] Employer '
         'registration failed:", regErr)', False, (), (101.0,),
         "labelled/soulpass__codex-session.jsonl (rg hit)"),
    Kind("timestamp", "noise", "Started at 2026-04-14T05:22:13.609Z", False, (),
         (2026.0, 4.0, 14.0, 5.0, 22.0, 13.609), "pool/random__session.jsonl"),
    Kind("commit-hash", "noise", "97d107c config: dwnload link now pass to accessPayload",
         False, (), (97.0,), "pool/Rivo__codex-session.jsonl (git log --oneline)"),
    Kind("camelcase-id", "noise", "TradingAccount: 2165229,", False, (), (2165229.0,),
         "labelled/pfm-categorization__opencode-session.json (an account id)"),
    Kind("codex-token-counter", "noise",
         'web\\package-lock.json:…26796 tokens truncated…ui/-/cliui-8.0.1.tgz"', False, (),
         (26796.0,), "pool/Rivo__codex-session.jsonl (Codex cut an rg output)"),
    Kind("prose-grep-count", "noise", "I found 2 occurrences (both have id=\"demoModal\")",
         True, (), (2.0,), "labelled/k1.lib-bootstrap__session-export.json"),
    Kind("css-animation", "noise",
         "| `DiaText` | Text swap animation | Opacity 0.58→1 (0.26s), blur 8→0 (0.34s), "
         "shift 5.5→0 (0.34s) |", True, (), (0.26, 0.34, 0.58),
         "labelled/uicomponents__session-wordpress.json (a component's spec)"),
    Kind("css-animation-row", "noise",
         "| Component | Animation Type | Values |\n|---|---|---|\n"
         "| `TypewriterEffect` | `useAnimate()` stagger | Each span: 0.3s, stagger 0.1s, "
         "`easeInOut` |\n| `TypewriterEffect`/Smooth | Cursor blink | Opacity 0→1, 0.8s, "
         "infinite reverse |\n| **Entry animation** | `gsap.timeline()`: scale from 0.95 → 1 "
         "(0.6s, `back.out(1.7)`), bg-size from 0% → 100% (2s, `elastic.out(1, 0.5)`) |", True,
         (), (0.3, 0.1, 0.8, 0.6, 2.0, 0.0, 100.0),
         "labelled/uicomponents__session-wordpress.json (a subagent's table of a React "
         "source's animations; the handoff took 'Each span: 0.3 s' as the session's best)"),
    Kind("css-default", "noise",
         "| `Sweep` | Sweep position from -17 to 117 over duration (default 2s), custom ease |",
         True, (), (2.0,), "labelled/uicomponents__session-wordpress.json"),
    Kind("css-viewport", "noise",
         "The aurora background now covers exactly the hero section (`h-dvh` = 100% viewport "
         "height).", True, (), (100.0,), "labelled/uicomponents__session-export.json"),
    Kind("shown-chars", "noise", "First 200 chars of output: <div class=\"modal fade\">",
         False, (), (200.0,), "labelled/k1.lib-bootstrap__session-export.json (also "
                              "uicomponents__session-wordpress.json)"),
    Kind("status-named-as-errors", "noise",
         "Looking at the 422 error cases, it's specifically for invalid source enum values.",
         True, (), (422.0,), "labelled/pfm-categorization__opencode-session.json (also "
                             "'the 404 error should be gone!', search corpus id 52482657219)"),
    Kind("coverage-target", "noise",
         "All tests pass. Now let me set up coverage testing with `cargo-llvm-cov` to ensure "
         "100% coverage.", True, (), (100.0,),
         "claude-code/python-to-rust-port/transcript.jsonl (also 'Run tests to ensure 100% "
         "coverage', search corpus id 67164160610)"),
    Kind("coverage-reading", "test-runner",
         "deterministic baseline coverage is now 100% (was 98%); full DB 81.6%.", True,
         ((100.0, "%"),), (), "public agent note, search corpus id 57984870721 (the reading "
                              "the target row must keep)"),
    Kind("billions-in-prose", "noise",
         "should be `1,151,347,322,395,962,217,625` (off by ~40B in the millions-of-billions "
         "place)", True, (), (40.0,), "pool/blockchain-dex-events__claude-session.jsonl"),
    # ------------------------------------------------------------ money (meas10)
    Kind("price-in-output", "price",
         "  WETH in:   1.154812 WETH\n  USDC out:  3184.355095 USDC ($3184.36)", False,
         ((3184.36, "USD"), (3184.355095, "USDC")), (),
         "pool/blockchain-dex-events__claude-session.jsonl:271 (also FundWise:18's "
         "'10,000 USDG prize pool')"),
    Kind("price-stated", "price",
         "The live Agentic Engineering listing is still active: 200 USDG cheque size, global",
         True, ((200.0, "USDG"),), (), "pool/Rivo__codex-session.jsonl:162"),
    Kind("shell-positional-no-price", "noise",
         'for f in "$@"; do echo "$1 $2"; done', False, (), (1.0, 2.0),
         "a shell loop's positional parameters (the shape every agent's bash shows)"),
)

CALLS: tuple[CallKind, ...] = (
    CallKind("wc-one-file", "size", "bash", "search",
             "wc -l /home/da/.claude/projects/-home-da-akerud-random/a263b894.jsonl",
             "91 /home/da/.claude/projects/-home-da-akerud-random/a263b894.jsonl",
             ((91.0, "lines"),), (), "pool/random__session.jsonl:93"),
    CallKind("powershell-name-length", "size", "bash", "search",
             "powershell -Command \"Get-ChildItem 'c:\\Users\\vassa\\Documents\\dev\\will-it-rain"
             "\\dist\\index.mjs' | Select-Object Name, Length\"",
             "Name      Length\r\n----      ------\r\nindex.mjs   4396\r", ((4396.0, "B"),), (),
             "labelled/will-it-rain__claude.jsonl:134-135 (a listing: only its sizes are read)"),
    CallKind("stat-size", "size", "bash", "other", "stat -c %s dist/app.js", "45123\n",
             ((45123.0, "bytes"),), (),
             "GNU stat's format (`stat --printf '%s' file  # only the size`, textbookoflinux.com "
             "glossary; coreutils' stat invocation, getdocs.org); BSD's is `stat -f %z`"),
    CallKind("grep-hits", "noise", "bash", "search", 'grep -rn "use k1" demo/index.php',
             "demo/index.php:3:use k1\\lib\\html\\bootstrap as bs;\n"
             "demo/index.php:9:use k1\\lib\\html\\bootstrap\\Alert;\n", (), (2.0, 3.0, 9.0),
             "labelled/k1.lib-bootstrap__session-export.json (a grep's hits)"),
    CallKind("grep-tool-found", "noise", "grep", "search", "use k1",
             "Found 63 matches\n/demo/index.php:\n  Line 3: use k1", (), (63.0, 3.0),
             "labelled/k1.lib-bootstrap__session-export.json (opencode grep tool)"),
    CallKind("ls-entries", "noise", "bash", "search", "ls -la",
             "total 0\ndrwxr-xr-x   3 yukikimura  staff   96 Feb 14 17:11 .\n"
             "drwxr-xr-x  20 yukikimura  staff  640 Feb 14 17:10 ..\n"
             "drwxr-xr-x@ 10 yukikimura  staff  320 Feb 14 17:11 .git\n", (), (3.0,),
             "pool/privacy-x402__codex-session.jsonl:21"),
    CallKind("ls-counted", "noise", "bash", "search", "ls src/components | wc -l", "14\n",
             (), (14.0,), "an ls entry count through wc (labelled/uicomponents shape)"),
    CallKind("directory-read", "noise", "read", "search", "/home/hjk/Projects",
             "ygo-tool-cli/\nygopro/\n\n(21 entries)\n</entries>", (), (21.0,),
             "pool/matugen-theme-sync__opencode-session.json, message 10"),
    CallKind("gemini-read-truncated", "size", "read", "read", "/w/src/big.py",
             "IMPORTANT: The file content has been truncated.\nStatus: Showing lines 1-2000 of "
             "5755 total lines.\nAction: To read more of the file, you can use the 'offset' and "
             "'limit' parameters.\n\n--- FILE CONTENT (truncated) ---\nimport os\n",
             ((5755.0, "lines"),), (1.0, 2000.0),
             "Gemini CLI's read_file note, quoted by a public agent tool's tests, search corpus "
             "id 57404376314 (also 'Showing lines 1-50 of 120 total lines.', id 57364635092)"),
    # ------------------------------------------------------------ meas14
    CallKind("pi-read-more-lines", "size", "read", "read",
             "/home/selim/Documents/Code/civ6.ch/web/src/routes/login/+page.server.ts",
             "import { verify, hash } from '@node-rs/argon2';\n\n\n"
             "[61 more lines in file. Use offset=11 to continue.]",
             ((61.0, "lines"), (71.0, "lines")), (11.0,),
             "pool/civ6.ch__session.jsonl:21 (pi's read of 10 lines; also :22, '[36 more "
             "lines in file. Use offset=11 to continue.]')"),
    CallKind("kotlinc-errors", "count", "bash", "build", "./gradlew assembleDebug",
             "e: file:///builds/fdroid/fdroiddata/build/com.nima.mymood/app/src/main/java/com/"
             "nima/mymood/screens/DayScreen.kt:180:72 Unresolved reference: baseline_show_"
             "chart_24\ne: file:///builds/fdroid/fdroiddata/build/com.nima.mymood/app/src/main"
             "/java/com/nima/mymood/screens/MenuScreen.kt:763:40 Unresolved reference: "
             "baseline_show_chart_24", ((2.0, "errors"),), (180.0, 72.0, 763.0, 40.0),
             "NimaKhajehpour/MyMood#33 (an F-Droid build log, Kotlin 1.8+ diagnostics)"),
    CallKind("kotlinc-errors-old", "count", "bash", "build", "flutter build apk",
             "e: C:\\flutter\\.pub-cache\\hosted\\pub.dartlang.org\\blue_print_pos-0.0.12"
             "\\android\\src\\main\\kotlin\\com\\ayeee\\blue_print_pos\\BluePrintPosPlugin.kt:"
             " (51, 62): Unresolved reference: R\ne: C:\\flutter\\.pub-cache\\hosted\\"
             "pub.dartlang.org\\blue_print_pos-0.0.12\\android\\src\\main\\kotlin\\com\\ayeee"
             "\\blue_print_pos\\BluePrintPosPlugin.kt: (52, 60): Unresolved reference: "
             "currentWindowMetrics\n\nFAILURE: Build failed with an exception.\n\n"
             "BUILD FAILED in 18s",
             ((2.0, "errors"), (18.0, "s")), (51.0, 62.0, 52.0, 60.0),
             "andriyoganp/blue_print_pos#45 (Kotlin before 1.8: 'File.kt: (line, col):')"),
    # ------------------------------------------------------------ failed calls (meas12)
    # a failed call's result is its error text: every reader keeps it there
    CallKind("failed-fetch-status", "http", "webfetch", "research", "https://example.com",
             "Request failed with status code 403", ((403.0, "HTTP"),), (),
             "Claude Code's WebFetch error, anthropics/claude-code#13718 (also "
             "'failed to fetch URL …: HTTP 403: 403 Forbidden', the-open-agent/openagent#2330)",
             failed=True),
    CallKind("failed-fetch-status-opencode", "http", "webfetch", "research",
             "https://www.tenforums.com/tutorials/130690-list-categories-all-apps-windows-11-"
             "start-menu.html",
             "StatusCode: non 2xx status code (403 GET https://www.tenforums.com/tutorials/"
             "130690-list-categories-all-apps-windows-11-start-menu.html)", ((403.0, "HTTP"),),
             (130690.0, 11.0), "opencode's webfetch error, anomalyco/opencode#43053 (its "
                               "websearch's too: '(403 POST https://search.parallel.ai/mcp)')",
             failed=True),
    CallKind("failed-test-run", "test-runner", "bash", "test", "pytest -q",
             "======================== 50 passed, 1 warning in 1.15s ========================",
             ((50.0, "passed"), (1.15, "s")), (),
             "the pytest-summary row's line, as the error of a run an agent marked failed "
             "(Gemini CLI's status 'error', Antigravity's ERROR step)", failed=True),
    CallKind("failed-write-no-size", "noise", "write", "edit", "/w/config.json",
             "<tool_use_error>File has not been read yet. Read it first before writing to "
             "it.</tool_use_error>", (), (195.0,),
             "labelled/speakfree__session.jsonl (a Write refused: nothing was written)",
             failed=True),
    CallKind("failed-listing-no-count", "noise", "bash", "search", "rg --files",
             'execution error: Io(Custom { kind: Other, error: "windows sandbox: '
             'CreateProcessWithLogonW failed: 1056" })', (), (1.0, 1056.0),
             "labelled/Valdyum-Labs__codex-session.jsonl (a sandboxed rg that never ran)",
             failed=True),
)
