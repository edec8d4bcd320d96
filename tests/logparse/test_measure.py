"""measurements(): the numbers tool outputs and messages report, with unit and label.

Table-driven over real-world-shaped output of many tools (cargo, pytest, jest, go test, wrk,
pgbench, fio, curl -w, k6, hyperfine, du/df, ls -l, docker images, vite/webpack builds, npm,
git, HTTP) and prose, plus what must never be read as a measurement (settings, versions,
ports, dates, line numbers, PIDs).
"""

from __future__ import annotations

import random

import pytest

from fixtures.blackwell import campaign as cp
from logparse.measure import (
    compiler_error_count,
    listing_length,
    measurement_tuples,
    measurements,
    round_sig,
)
from logparse.models import Measurement


def _server_log() -> str:
    rng = random.Random(7)
    now = 1_750_000_000_000
    return "\n".join(cp.startup_log(rng, now) + cp.decode_lines(rng, now, 60, 89.5)) + "\n"


def _m(value: float, unit: str, label: str) -> Measurement:
    return Measurement(value=value, unit=unit, label=label)


def test_bench_serving_block() -> None:
    block = cp.bench_block(random.Random(4), 89.5, median_tpot=11.17, accept_length=3.21)
    got = measurements(block)
    for want in (_m(89.5, "tok/s", "Output token throughput"), _m(11.17, "ms", "Median TPOT"),
                 _m(3.21, "", "Accept length"), _m(8, "", "Successful requests")):
        assert want in got
    labels = [m.label for m in got]
    for label in ("Mean TTFT", "Request throughput", "Benchmark duration", "P99 ITL",
                  "Total generated tokens (retokenized)"):
        assert label in labels
    assert len(labels) == len(set(labels))  # "(ms)" rows are not also read as unitless rows
    units = {m.label: m.unit for m in got}
    assert units["Request throughput"] == "req/s" and units["Benchmark duration"] == "s"


MEASURE: list[tuple[str, list[Measurement]]] = [
    ("Output token throughput (tok/s):          89.50",
     [_m(89.5, "tok/s", "Output token throughput")]),
    ("Median TPOT (ms):                        11.17", [_m(11.17, "ms", "Median TPOT")]),
    ("Accept length: 3.21", [_m(3.21, "", "Accept length")]),
    ("Decode throughput: 38.2 tok/s", [_m(38.2, "tok/s", "Decode throughput")]),
    ("spec decoding: 54 tok/s vs baseline 82 tok/s",
     [_m(54, "tok/s", "spec decoding"), _m(82, "tok/s", "baseline")]),
    ("spec decoding gives 54 tok/s against 82 tok/s baseline",
     [_m(54, "tok/s", "spec decoding"), _m(82, "tok/s", "baseline")]),
    ("[2025-06-11 14:02:11 TP0] Decode batch. #running-req: 1, #token: 1234, token usage: 0.01, "
     "cuda graph: True, gen throughput (token/s): 89.12, #queue-req: 0, ",
     [_m(89.12, "token/s", "gen throughput")]),
    ("Throughput: 4.21 requests/s, 5389.12 total tokens/s, 1077.82 output tokens/s",
     [_m(4.21, "req/s", "Throughput"), _m(5389.12, "tokens/s", "Throughput (total)"),
      _m(1077.82, "tokens/s", "Throughput (output)")]),
    ("Avg latency: 1.234 seconds", [_m(1.234, "s", "Avg latency")]),
    ("copy bandwidth 23.45 GB/s", [_m(23.45, "GB/s", "copy bandwidth")]),
    ("mem usage=0.77 GB", [_m(0.77, "GB", "mem usage")]),
    ("label = 12.3 ms", [_m(12.3, "ms", "label")]),
    ("Speedup: 1.09x", [_m(1.09, "x", "Speedup")]),
    ("GPU utilization: 98%", [_m(98, "%", "GPU utilization")]),
    ("peak 120 TFLOPS", [_m(120, "TFLOPS", "peak")]),
    ("45.2 tokens/sec", [_m(45.2, "tokens/s", "")]),
    ("Output throughput is 89.5 tok/s with median TPOT of 11.17 ms.",
     [_m(89.5, "tok/s", "Output throughput"), _m(11.17, "ms", "median TPOT")]),
    ("The custom allreduce produced a catastrophic 38 tok/s.",
     [_m(38, "tok/s", "custom allreduce")]),
    ("Reducing --cuda-graph-max-bs improves baseline throughput (from 82 to 89.5 tok/s).",
     [_m(89.5, "tok/s", "baseline throughput")]),
    ("spec decoding is 30% slower", [_m(30, "%", "spec decoding slower")]),
    ("| config | decode |\n|---|---|\n| baseline | 82 tok/s |\n| Mean TPOT | 11.2 ms |\n",
     [_m(82, "tok/s", "baseline decode"), _m(11.2, "ms", "Mean TPOT decode")]),
    ("p99 latency 900 ms, p50 120 ms", [_m(900, "ms", "p99 latency"), _m(120, "ms", "p50")]),
    ("the baseline does **89.50 tok/s**, median TPOT **11.17 ms**, vs 82 tok/s / 12.2 ms before",
     [_m(89.5, "tok/s", "baseline"), _m(11.17, "ms", "median TPOT"), _m(82, "tok/s", "")]),
    ("Capture cuda graph end. Time elapsed: 12.30 s. mem usage=4.52 GB. avail mem=5.09 GB.",
     [_m(12.3, "s", "Time elapsed"), _m(4.52, "GB", "mem usage"), _m(5.09, "GB", "avail mem")]),
]


@pytest.mark.parametrize(("text", "want"), MEASURE, ids=[t[:40] for t, _ in MEASURE])
def test_measurements(text: str, want: list[Measurement]) -> None:
    assert measurements(text) == want


NCCL_TESTS = """\
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     8388608       2097152     float     sum      -1    412.3   20.35   35.61      0    409.8   20.47   35.82      0
    67108864      16777216     float     sum      -1   2931.1   22.90   40.07      0   2925.4   22.94   40.15      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 37.9125
"""


def test_nccl_tests_busbw() -> None:
    assert measurements(NCCL_TESTS) == [
        _m(35.61, "GB/s", "busbw 8388608 B"), _m(40.07, "GB/s", "busbw 67108864 B"),
        _m(37.9125, "GB/s", "Avg bus bandwidth")]


@pytest.mark.parametrize("text", [
    "torch 2.10.0\nCUDA Version: 12.9\nsglang 0.5.3\n",
    "[2025-06-11 14:02:11] INFO:     Started server process [4242]\n",
    "/root/sglang/python/sglang/srt/server_args.py:2197:    timeout: 30 s\n",
    "It took 12 ms to start, then 5 s more.",
    "sleep 5 s then retry; 8x RTX PRO 6000; 100%|██████████| 8/8 [03:03<00:00, 22.89s/it]",
    "index, memory.used [MiB]\n0, 88123 MiB\n1, 88233 MiB\n",
    "version: 1.2.3 ms\n",
], ids=["versions", "timestamps", "grep of source", "bare ms/s in prose", "noise",
        "csv", "version-like"])
def test_no_noise(text: str) -> None:
    assert measurements(text) == []


def test_nvidia_smi_has_no_measurements() -> None:
    assert measurements(cp.nvidia_smi(random.Random(3), 1_750_000_000_000)) == []


def test_server_log_measurements() -> None:
    got = measurements(_server_log())
    assert got and all(m.label for m in got)
    assert {m.unit for m in got} >= {"token/s", "GB"}




# ------------------------------------------------------------ many tools, many domains

def _has(text: str, *want: tuple[float, str, str], prose: bool = False) -> None:
    got = [(m.value, m.unit, m.label) for m in measurements(text, prose)]
    for w in want:
        assert w in got, f"{w} not in {got}"


DOMAINS: list[tuple[str, str, list[tuple[float, str, str]]]] = [
    ("cargo build", "   Compiling logkb v0.1.0 (/src)\n"
     "    Finished `release` profile [optimized] target(s) in 28.48s\n",
     [(28.48, "s", "Finished release profile target")]),
    ("cargo test", "test result: ok. 42 passed; 0 failed; 1 ignored; 0 measured; "
     "0 filtered out; finished in 0.12s\n",
     [(42, "passed", "test result: ok"), (0, "failed", "test result"), (0.12, "s", "finished")]),
    ("rustc", "error: could not compile `app` (bin \"app\") due to 3 previous errors\n",
     [(3, "errors", 'bin "app"')]),
    ("pytest", "========= 42 passed, 1 failed, 3 skipped in 12.34s =========\n",
     [(42, "passed", ""), (1, "failed", ""), (3, "skipped", ""), (12.34, "s", "skipped")]),
    ("jest", "Tests:       1 failed, 41 passed, 42 total\nTime:        3.21 s\n",
     [(1, "failed", "Tests"), (41, "passed", "Tests"), (42, "total", "Tests"),
      (3.21, "s", "Time")]),
    ("go test", "--- FAIL: TestParse (0.01s)\nFAIL\tgithub.com/x/y\t0.456s\n"
     "ok  \tgithub.com/x/z\t0.123s\n",
     [(0.01, "s", "FAIL: TestParse"), (0.456, "s", "FAIL github.com/x/y"),
      (0.123, "s", "ok github.com/x/z")]),
    ("wrk", "Running 30s test @ http://127.0.0.1:8080/\n  4 threads and 100 connections\n"
     "    Latency     6.12ms    2.01ms  43.10ms   89.00%\n  Latency Distribution\n"
     "     50%    6.00ms\n     99%   43.00ms\n  491520 requests in 30.01s, 58.12MB read\n"
     "Requests/sec:  16380.12\nTransfer/sec:      1.94MB\n",
     [(6.12, "ms", "Latency"), (6.0, "ms", "p50"), (43.0, "ms", "p99"),
      (491520, "requests", ""), (30.01, "s", "requests"), (58.12, "MB", "read"),
      (16380.12, "req/s", "Requests/sec"), (1.94, "MB", "Transfer/sec")]),
    ("pgbench", "number of clients: 10\nlatency average = 8.123 ms\n"
     "tps = 1234.567890 (without initial connection time)\n",
     [(8.123, "ms", "latency average"), (1234.56789, "tps", "tps")]),
    ("fio", "  read: IOPS=12.3k, BW=48.1MiB/s (50.4MB/s)(2886MiB/60001msec)\n",
     [(12300, "IOPS", "read: IOPS"), (48.1, "MiB/s", "BW")]),
    ("curl -w", "HTTP/1.1 404 Not Found\ntime_total: 0.123456\n",
     [(404, "HTTP", "HTTP status"), (0.123456, "s", "time_total")]),
    ("k6", "     http_req_duration..............: avg=6.12ms min=1.1ms med=5ms max=43ms "
     "p(90)=9ms p(95)=12ms\n     http_reqs......................: 1234   41.1/s\n",
     [(1.1, "ms", "http_req_duration min"), (43, "ms", "http_req_duration max"),
      (9, "ms", "http_req_duration p90"), (12, "ms", "http_req_duration p95"),
      (41.1, "/s", "http_reqs")]),
    ("hyperfine", "  Time (mean ± σ):     12.3 ms ±   0.4 ms    [User: 10.1 ms, System: 2.0 ms]\n",
     [(12.3, "ms", "mean"), (0.4, "ms", "σ"), (10.1, "ms", "User"), (2.0, "ms", "System")]),
    ("du -sh", "4.0K\t./src\n120M\t/var/log\n", [(4.0, "KiB", "./src"), (120, "MiB", "/var/log")]),
    ("ls -l", "-rw-r--r-- 1 root root  385024 Jul 30 14:08 opencode.db\n"
     "drwxr-xr-x 2 root root    4096 Jul 30 14:04 log\n", [(385024, "B", "opencode.db")]),
    ("next build", " Route (app)                              Size     First Load JS\n"
     " ┌ ○ /                                    5.42 kB        87.3 kB\n"
     " └ ○ /cart                                2.18 kB        84.1 kB\n"
     " + First Load JS shared by all            81.9 kB\n",
     [(5.42, "kB", "/ Size"), (87.3, "kB", "/ First Load JS"), (84.1, "kB", "/cart First Load JS"),
      (81.9, "kB", "First Load JS shared by all Size")]),
    ("jest --coverage", "File      | % Stmts | % Branch | % Funcs | % Lines |\n"
     "----------|---------|----------|---------|---------|\n"
     "All files |    87.5 |    71.42 |   83.33 |    87.5 |\n",
     [(87.5, "%", "All files % Stmts"), (71.42, "%", "All files % Branch"),
      (83.33, "%", "All files % Funcs")]),
    ("kubectl top", "NAME              CPU(cores)   MEMORY(bytes)\napi-7d9f8b-x2x    250m         512Mi\n",
     [(512, "MiB", "api-7d9f8b-x2x MEMORY(bytes)")]),
    ("next dev requests", " GET / 200 in 35ms\n GET /_next/static/chunks/main-app.js 404 in 3ms\n",
     [(200, "HTTP", "GET /"), (35, "ms", "GET /"),
      (404, "HTTP", "GET /_next/static/chunks/main-app.js")]),
    ("access log", '127.0.0.1 - - [04/Dec/2026:01:02:03 +0000] "GET /health HTTP/1.1" 503 12 "-"\n',
     [(503, "HTTP", "GET /health")]),
    ("vegeta report",
     "Latencies     [min, mean, 50, 90, 95, 99, max]  1.2ms, 12.4ms, 8.9ms, 21.3ms, 30.1ms, "
     "88.2ms, 412.5ms\nSuccess       [ratio]                           99.73%\n"
     "Status Codes  [code:count]                      200:2992  500:8\n",
     [(8.9, "ms", "Latencies p50"), (88.2, "ms", "Latencies p99"), (99.73, "%", "Success ratio"),
      (8, "requests", "HTTP 500")]),
    ("ping", "rtt min/avg/max/mdev = 0.041/0.047/0.055/0.005 ms\n",
     [(0.041, "ms", "rtt min"), (0.055, "ms", "rtt max")]),
    ("criterion", "parse_json              time:   [12.345 µs 12.401 µs 12.462 µs]\n",
     [(12.401, "µs", "parse_json time"), (12.345, "µs", "parse_json time (low)")]),
    ("hey", "Latency distribution:\n  50% in 0.0189 secs\n  99% in 0.1102 secs\n",
     [(0.0189, "s", "p50"), (0.1102, "s", "p99")]),
    ("sysbench", "    transactions:                        120000 (3999.12 per sec.)\n",
     [(3999.12, "/s", "transactions")]),
    ("prometheus", 'http_request_duration_seconds{quantile="0.99"} 0.232\n'
     "process_resident_memory_bytes 5.12e+08\n",
     [(0.232, "s", 'http_request_duration_seconds{quantile="0.99"}'),
      (5.12e8, "B", "process_resident_memory_bytes")]),
    ("go gctrace", "gc 12 @3.456s 2%: 0.031+1.2+0.004 ms clock, GC pause 1.2ms\n",
     [(1.2, "ms", "GC pause")]),
    ("ls -lh", "-rwxr-xr-x 1 root root 8.4M Dec  4 01:00 target/release/tollgate\n",
     [(8.4, "MiB", "target/release/tollgate")]),
    ("kubectl get pods", "NAME              READY   STATUS             RESTARTS   AGE\n"
     "api-7d9f8b-x2x    0/1     CrashLoopBackOff   7          12m\n",
     [(7, "restarts", "api-7d9f8b-x2x RESTARTS")]),
    ("maven", "[INFO] Total time:  01:23 min\n", [(83, "s", "Total time")]),
    ("bun test", " 12 pass\n 1 fail\n", [(12, "passed", "tests"), (1, "failed", "tests")]),
    ("docker images", "REPOSITORY   TAG      IMAGE ID       CREATED       SIZE\n"
     "myapp        latest   3f2a1b2c3d4e   2 days ago    1.23GB\n",
     [(1.23, "GB", "myapp SIZE")]),
    ("vite", "dist/assets/index-oS5Y8Ufb.js   406.97 kB │ gzip: 128.71 kB\nΓ£ô built in 750ms\n",
     [(406.97, "kB", "index-oS5Y8Ufb.js"), (128.71, "kB", "gzip"), (750, "ms", "built")]),
    ("webpack", "asset main.js 1.2 MiB [emitted] (name: main)\n"
     "webpack 5.90.0 compiled successfully in 2345 ms\n",
     [(1.2, "MiB", "asset main.js"), (2345, "ms", "webpack compiled successfully")]),
    ("npm install", "added 2 packages, and audited 61 packages in 22s\n\n"
     "found 0 vulnerabilities\n",
     [(2, "packages", "added"), (61, "packages", "audited"), (22, "s", "audited packages"),
      (0, "vulnerabilities", "found")]),
    ("git commit", "[main 8aa5ab2] Initial commit\n 21 files changed, 1484 insertions(+), "
     "457 deletions(-)\n",
     [(21, "files changed", ""), (1484, "insertions", ""), (457, "deletions", "")]),
    ("HTTP probe", "Status: 200\r\nContent-Length: 74358\r\n",
     [(200, "HTTP", "HTTP status"), (74358, "B", "Content-Length")]),
    ("status code", "request failed with status code 502\n", [(502, "HTTP", "HTTP status")]),
    ("grep tool", "Found 63 matches\n", [(63, "matches", "Found")]),
    ("keyed count", "Substr count 'font-size:14px': 25\nOK: Post 5 updated. Length: 21042 chars\n",
     [(25, "", "Substr count 'font-size:14px"), (21042, "chars", "Length")]),
    ("time", "real\t0m1.234s\nuser\t0m0.800s\n", [(1.234, "s", "real"), (0.8, "s", "user")]),
    ("compound", "the migration took 3m12s\n", [(192, "s", "migration")]),
    ("exceeded timeout", "shell tool terminated command after exceeding timeout 120000 ms.",
     [(120000, "ms", "timeout exceeded")]),
    ("rates", "ingest: 4,640 messages/s, 12 MB/h of WAL, 3.2 Gbps\n",
     [(4640, "messages/s", "ingest"), (12, "MB/h", "WAL"), (3.2, "Gbit/s", "WAL")]),
    ("usage block", '{"tokens": {\n  "input": 45633822,\n  "output": 188726\n}}',
     [(45633822, "tokens", "tokens input"), (188726, "tokens", "tokens output")]),
    ("api usage", '{"usage": {"input_tokens": 1200, "output_tokens": 85}}',
     [(1200, "tokens", "input_tokens"), (85, "tokens", "output_tokens")]),
    # pool Rivo__codex-session.jsonl:48 (PowerShell Get-ChildItem, trimmed)
    ("Get-ChildItem", "    Directory: D:\\Ripple\r\n\r\nMode                 LastWriteTime"
     "         Length Name\r\n----                 -------------         ------ ----\r\n"
     "d--h--          5/2/2026   6:10 PM                .git\r\n"
     "-a----         4/30/2026  12:00 AM          10792 README.md       \r\n"
     "-a----         4/14/2026   6:43 PM            458 vercel.json\r\n",
     [(10792, "B", "README.md"), (458, "B", "vercel.json")]),
    # pool blockchain-dex-events__claude-session.jsonl:47 (bundle install)
    ("bundler", "Bundle complete! 1 Gemfile dependency, 7 gems now installed.\n",
     [(7, "gems", "installed")]),
    # labelled soulpass__codex-session.jsonl:716 (next build, trimmed)
    ("progress done", "  Generating static pages using 9 workers (0/47) ...\n"
     "  Generating static pages using 9 workers (11/47) \n"
     "✓ Generating static pages using 9 workers (47/47) in 192.9ms\n",
     [(47, "pages", "Generating pages"), (192.9, "ms", "Generating static pages using workers")]),
    # labelled soulpass__codex-session.jsonl:605 (solana account info, trimmed)
    ("size field", "Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr {\n  owner: "
     "'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',\n  executable: false,\n  dataLen: 82\n}\n",
     [(82, "", "dataLen")]),
    # pool FundWise__claude-session.jsonl:216 (`...; echo "exit=$?"`, trimmed)
    ("echoed exit status", "error: `zerion` CLI not found on PATH.\nexit=2\n",
     [(2, "exit code", "exit")]),
]


@pytest.mark.parametrize(("name", "text", "want"), DOMAINS, ids=[d[0] for d in DOMAINS])
def test_domains(name: str, text: str, want: list[tuple[float, str, str]]) -> None:
    _has(text, *want)


PROSE: list[tuple[str, list[tuple[float, str, str]]]] = [
    ("The build now takes 28 s and p99 latency is 43 ms.",
     [(43, "ms", "p99 latency")]),
    # a count of occurrences in prose is a grep hit count, no reading (issue 22 item 5)
    ("That's 13 occurrences; there are 15 errors left.",
     [(15, "errors", "")]),
    ("The page was rebuilt (22791 bytes of Elementor JSON data).", [(22791, "B", "page")]),
    ("All 6 widgets registered. 12 rows were updated.",
     [(6, "widgets", "registered"), (12, "rows", "updated")]),
]


@pytest.mark.parametrize(("text", "want"), PROSE, ids=[t[:30] for t, _ in PROSE])
def test_prose(text: str, want: list[tuple[float, str, str]]) -> None:
    _has(text, *want, prose=True)


@pytest.mark.parametrize("text", [
    "timeout = 30s\n", "--timeout 30s\n", "retry interval: 5 s\n", "sleep 5s && curl x\n",
    "PHP 8.2.30 Development Server (http://localhost:8080) started\n",
    "Listening on 0.0.0.0:8080 (pid 4242)\n", "Wed May 20 01:14:59 2026\n2026-05-20T01:14:59Z\n",
    "src/app.py:123: in test_x\n", "Bootstrap v5.3.3 (https://getbootstrap.com/)\n",
    "commit 7312fcb0a9\nMerge: 5e4b714 16c417d\n", "line 12, column 5\n",
    "    4096 Jul 30 14:04 log\n", "5\tShowcase\tpublish\n",
    "index, memory.used [MiB]\n0, 88123 MiB\n",
    "Time: 12:30\nETA: 00:40\n", "retry delay 5s\n",
    "PID   USER   COMMAND\n4242  root   nginx\n",
], ids=["setting", "flag", "interval", "sleep", "version", "port+pid", "dates",
        "pytest location", "version v", "hashes", "line/column", "ls fragment",
        "tab table", "csv", "clock times", "delay setting", "process table"])
def test_not_measurements(text: str) -> None:
    assert measurements(text) == []


@pytest.mark.parametrize("text", [
    "I'll read the first 50 lines and fix 3 files.", "After 80 ms the panel fades in.",
    "Next, 3 files need changes and 2 tests to be added.", "It failed 3 times updated daily.",
], ids=["plan counts", "a delay", "plans", "times"])
def test_prose_plans_are_not_measurements(text: str) -> None:
    assert measurements(text, prose=True) == []


def test_listing_length_and_compiler_errors() -> None:
    assert listing_length("<content>\n1: a\n</content>\n\n(Showing lines 1-30 of 4886. "
                          "Use offset=31 to continue.)\n</content>") == 4886
    assert listing_length("1: x\n\n(End of file - total 12 lines)\n</content>") == 12
    assert listing_length("no footer") is None
    tsc = ("src/a.tsx(10,8): error TS2307: Cannot find module 'x'.\r\n"
           "src/b.tsx(2,24): error TS2339: Property 'y' does not exist.\r\n"
           "src/c.c:3:5: error: expected ';'\n  note: here\n")
    assert compiler_error_count(tsc) == 3
    assert compiler_error_count("all good") == 0
    # labelled speakfree__session.jsonl:376 (swift build, trimmed): the two deprecations
    swift = ("[4/6] Compiling OpenWisprLib AppDelegate.swift\n"
             "/Users/m/Code/openwisprmod/Sources/OpenWisprLib/TextInserter.swift:65:27: "
             "warning: 'NSUserNotification' was deprecated in macOS 11.0\n"
             " 65 |             let content = NSUserNotification()\n"
             "    |                           `- warning: 'NSUserNotification' was deprecated\n"
             "/Users/m/Code/openwisprmod/Sources/OpenWisprLib/TextInserter.swift:68:13: "
             "warning: 'NSUserNotificationCenter' was deprecated in macOS 11.0\n")
    assert compiler_error_count(swift, "warning") == 2 and compiler_error_count(swift) == 0


def test_round_sig() -> None:
    assert round_sig(1009.608) == 1010 and round_sig(0.012345) == 0.0123
    assert round_sig(0.0) == 0.0


def test_measuring_is_one_pass_not_a_scan_per_unit() -> None:
    # a long output with numbers everywhere and no measurement: bounded, no blow-up
    text = "id 12345 row 67 col 8 version 1.2.3 at 10:00:00\n" * 2000
    assert measurements(text) == []


# ------------------------------------------------------------------ what calls measure

def test_calls_measure_what_they_show() -> None:
    from logparse.derive import call_measurements, counted_value, grep_hits

    read = call_measurements("read", "search", {"filePath": "/p/SPEC.md"},
                             "<content>\n1: x\n\n(End of file - total 12 lines)\n</content>", {})
    assert read == [{"value": 12.0, "unit": "lines", "label": "SPEC.md length"}]
    write = call_measurements("write", "file-edit", {"filePath": "C:\\p\\index.php",
                                                     "content": "x" * 31842}, "Wrote file", {})
    assert write == [{"value": 31842.0, "unit": "chars", "label": "index.php written"}]
    task = call_measurements("task", "subagent", {}, "<task_result>done</task_result>",
                             {"start": 1_000, "end": 1_010_608})
    assert task == [{"value": 1009.608, "unit": "s", "label": "subagent run time"}]
    # a grep tool's count is a grep hit count, no reading (issue 22 item 5)
    assert call_measurements("grep", "search", {}, "Found 63 matches\n/a.php:\n  Line 3: x", {}
                             ) is None
    tsc = call_measurements("bash", "build", {"command": "npx tsc --noEmit"},
                            "a.tsx(1,2): error TS2307: x\r\nb.tsx(3,4): error TS2339: y\r\n", {})
    assert {"value": 2.0, "unit": "errors", "label": "compiler errors"} in tsc
    # a launch's log is not read, the tool's timeout note is
    php = call_measurements("bash", "launch", {"command": "php -S localhost:8080"},
                            "PHP 8.2.30 Development Server started\n\n<shell_metadata>\nshell "
                            "tool terminated command after exceeding timeout 120000 ms.\n", {})
    assert [m["value"] for m in php] == [120000.0]
    ls = call_measurements("bash", "search", {"command": "ls -la ~/.local/share/opencode/"},
                           "-rw-r--r-- 1 root root 385024 Jul 30 14:08 opencode.db\n", {})
    assert ls == [{"value": 385024.0, "unit": "B", "label": "opencode.db"}]  # no entry count

    assert grep_hits('grep -rn "a\\|b" src --include="*.cs" 2>/dev/null', "x:1:a\ny:2:b\n") == 2
    assert grep_hits("grep -rn a src | head -5", "x\ny\n") == 0
    assert grep_hits("grep -c a src/x", "3\n") == 0
    assert counted_value("wp post list --format=count", "4") == {
        "value": 4.0, "unit": "", "label": "count"}
    assert counted_value("wc -l < a.txt", " 42\n")["unit"] == "lines"  # type: ignore[index]
    assert counted_value("echo 4", "4") is None


def test_messages_measure_cut_replies_and_compactions() -> None:
    from logparse.derive import derive_session, to_events
    from logparse.source import RawMessage

    def msg(i: int, role: str, parts: list[dict], **info: object) -> RawMessage:
        return RawMessage(info={"id": f"msg_{i:03d}", "role": role,
                                "time": {"created": 1000 + i}, **info}, parts=parts, raw=b"{}")

    msgs = [
        msg(1, "user", [{"type": "text", "id": "p1", "text": "plan it; the build takes 28 s"}]),
        msg(2, "assistant", [{"type": "text", "id": "p2", "text": "## Plan\n1. ..."}],
            finish="length", tokens={"input": 2, "output": 32000}),
        msg(3, "assistant", [{"type": "text", "id": "p3", "text": "Summary of the work"}],
            summary=True, tokens={"input": 106516, "output": 900, "cache": {"read": 0}}),
    ]
    batch, _ = derive_session("ses_x", "t.json", msgs)
    got = {e.ordinal: [(m.value, m.unit, m.label) for m in e.measurements]
           for e in to_events("ses_x", batch)}
    assert got[1] == [(28.0, "s", "build")]
    assert got[2] == [(32000.0, "tokens", "reply cut at the output limit")]
    assert got[3] == [(106516.0, "tokens", "context at compaction")]


def test_the_summary_line_of_a_diff_stat_is_read_and_its_listing_is_not() -> None:
    from logparse.derive import call_measurements

    out = (" src/app/page.tsx   | 818 ++++++++-----\n src/lib/a.ts | 12 +\n"
           " 8 files changed, 1474 insertions(+), 1126 deletions(-)\n")
    got = call_measurements("bash", "search", {"command": "git diff --stat"}, out, {})
    assert [(m["value"], m["unit"]) for m in got or []] == [
        (8.0, "files changed"), (1474.0, "insertions"), (1126.0, "deletions")]


@pytest.mark.parametrize(("text", "want"), [
    # Terraform's plan and apply summaries
    ("Plan: 3 to add, 1 to change, 0 to destroy.",
     [(3.0, "to add"), (1.0, "to change"), (0.0, "to destroy")]),
    ("Apply complete! Resources: 2 added, 0 changed, 1 destroyed.",
     [(2.0, "added"), (0.0, "changed"), (1.0, "destroyed")]),
    # Go: a benchmark row, the race detector's count
    ("BenchmarkTransfer-8   \t 1000000\t      1234 ns/op\t      56 B/op\t       2 allocs/op",
     [(1234.0, "ns/op"), (56.0, "B/op"), (2.0, "allocs/op")]),
    ("Found 2 data race(s)", [(2.0, "data races")]),
    # JUnit / Maven, ApacheBench, redis-benchmark, ping, Kubernetes quantities
    ("Tests run: 12, Failures: 1, Errors: 0, Skipped: 2",
     [(12.0, "tests"), (1.0, "failures"), (0.0, "errors"), (2.0, "skipped")]),
    ("Requests per second:    1234.56 [#/sec] (mean)\nTime per request:       8.100 [ms] (mean)",
     [(1234.56, "req/s"), (8.1, "ms")]),
    ("81300.81 requests per second", [(81300.81, "req/s")]),
    ("3 packets transmitted, 3 received, 0% packet loss", [(0.0, "%")]),
    ("api-7d9 memory 512Mi", [(512.0, "MiB")]),
    # a percentage the noun before it names; one the noun after it names
    ("coverage 81.2%", [(81.2, "%")]), ("CPU 45%", [(45.0, "%")]),
    ("3.7% flake rate", [(3.7, "%")]), ("45% done", []), ("opacity 50%", []),
])
def test_common_tool_summaries(text: str, want: list[tuple[float, str]]) -> None:
    assert [(v, u) for v, u, _ in measurement_tuples(text, False)] == want


def test_each_percentile_keeps_its_own_label() -> None:
    got = measurement_tuples("Latency  p50: 6 ms  p95: 21 ms  p99: 43 ms", False)
    assert [lab for _, _, lab in got] == ["Latency p50", "Latency p95", "Latency p99"]
    got = measurement_tuples("tasks: 8.73 s, latency p50: 41 ms, p99: 132 ms", False)
    assert got[-1] == (132.0, "ms", "latency p99")


def test_a_git_commit_summary_is_read_and_a_git_log_is_a_listing() -> None:
    """Category `git` (v6) covers both: a commit's summary line is a reading, a log's
    hashes and dates are not (k1 lost its commit sizes when every git output was gated)."""
    from logparse.derive import call_measurements

    summary = "[main 1a2b3c4] Add components\n 21 files changed, 1484 insertions(+)\n"
    got = call_measurements("bash", "git", {"command": "git -C repo commit -m 'x'"}, summary, {})
    assert got and 1484.0 in {m["value"] for m in got}
    log = "commit 1a2b3c4d\nAuthor: a <a@b>\nDate:   Mon Jan 5 10:00:00 2026\n\n    fix 42 bugs\n"
    assert not call_measurements("bash", "git", {"command": "git log -3"}, log, {})
