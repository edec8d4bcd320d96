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
from logparse.measure import compiler_error_count, listing_length, measurements, round_sig
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
     [_m(82, "tok/s", "baseline"), _m(11.2, "ms", "Mean TPOT")]),
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


