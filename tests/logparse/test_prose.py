"""classify_prose on labelled engineering prose.

``HELD_OUT`` was written before the classifier existed and was never used to tune it (but by
the same hand that wrote the rules, so it is not an independent sample).  ``LABELLED`` is the
development set the rules were tuned on; it grew in blind rounds: each round was written in
one go and scored once before any rule changed (first-pass accuracy noted), then joined it.
"""

from __future__ import annotations

import pytest

from logparse.models import ProseClass
from logparse.prose import (
    LANG_ROWS,
    LangRow,
    classify_prose,
    conclusion_phrase,
    dead_end_phrase,
    decision_phrase,
    pivot_phrase,
    plan_phrase,
    prose_rule,
)

P, OB, C, V, D, K = (ProseClass.PLAN, ProseClass.OBSERVATION, ProseClass.CONCLUSION,
                    ProseClass.PIVOT, ProseClass.DEAD_END, ProseClass.DECISION)

# Written before logparse/prose.py; never tuned on.
HELD_OUT: list[tuple[str, ProseClass]] = [
    ("The Redis cluster approach hits the same wall as the memcached one: no cross-slot "
     "transactions.", D),
    ("Crossing the Triton rewrite off the list; it needs sm_90 features we don't have.", D),
    ("Given the licensing terms, vendoring that library is a non-starter.", D),
    ("OK, scrap that — the patch breaks every other test in the suite.", D),
    ("Rather than patching the Dockerfile again, let's build from the upstream image.", V),
    ("Let's stop trying to tune the JVM flags and profile the allocation path.", V),
    ("Switching to the asyncpg driver, since psycopg2 blocks the event loop.", V),
    ("We'll go with blue-green deployments for the API tier.", K),
    ("Decided: pin numpy to 1.26 until the ABI issue is fixed upstream.", K),
    ("I'll commit to the Postgres migration and leave the cache layer alone.", K),
    ("That explains the 502s: the upstream keepalive timeout is shorter than nginx's.", C),
    ("So the regression comes from the new tokenizer, not the attention kernel.", C),
    ("With the batch size capped at 128, decode is 12% faster than before.", C),
    ("Next, I'll look at the kubelet logs on the failing node.", P),
    ("First, let me confirm the certificate chain is complete.", P),
    ("Need to check whether the env var is actually exported into the container.", P),
    ("The pod restarted three times in the last hour with exit code 137.", OB),
    ("GPU 3 shows 97 GB used while the others sit at 60 GB.", OB),
    ("The build log has two warnings about deprecated CMake policies.", OB),
    ("This is not a dead end yet; the nightly wheel might include the fix.", OB),
    ("Is the NVLink bridge the problem here?", P),
    ("Running the migration in a transaction won't work on MySQL because DDL auto-commits.", D),
    ("The throughput improved from 410 to 530 req/s after enabling HTTP keep-alive, which "
     "means the handshake was the bottleneck.", C),
    ("Let me grep the sglang source for where the all-reduce backend is chosen.", P),
    ("Going with the CUDA 13 toolkit for the whole cluster.", K),
    ("Time to change tack: instead of a bigger instance, shard the workload across two.", V),
    ("The TLS handshake takes 180 ms from the eu-west region.", OB),
    ("We are not abandoning the Rust port, just pausing it.", OB),
    ("Therefore the leak must be in the connection pool, not the ORM.", C),
    ("Disabling CUDA graphs makes no difference, so that's ruled out too.", D),
    ("The webhook fires twice for every push event.", OB),
    ("I'll run the benchmark again with --num-prompts 200 to reduce variance.", P),
]

# Development set (tuned on).
LABELLED: list[tuple[str, ProseClass]] = [
    # dead-end
    ("FlashInfer allreduce fusion is a dead end: its JIT doesn't support SM120.", D),
    ("KeyError: 12 from symmetric memory rules that out on Blackwell.", D),
    ("NCCL Tree is ruled out because it breaks CUDA graph capture.", D),
    ("Abandoning the custom allreduce path; 38 tok/s is far worse than NCCL.", D),
    ("The custom allreduce won't work on a PCIe switch with eight GPUs.", D),
    ("Torch symmetric memory doesn't work on sm_120 at all.", D),
    ("DeepEP is not viable here without NVSHMEM.", D),
    ("Crossing it off: the kernel needs TMA multicast, which PCIe parts lack.", D),
    ("I'm going to give up on the Helm chart and write plain manifests.", D),
    ("Expert parallelism with the flashinfer backend is a no-go because it OOMs at startup.", D),
    ("| NCCL Tree | ❌ incompatible with CUDA graphs |", D),
    ("Using a service mesh for this is a non-starter given the latency budget.", D),
    ("The ARM build hits the same wall: the wheel isn't published for aarch64.", D),
    ("The old driver can't be used with CUDA 13.", D),
    ("Scrap that, the migration locks the users table for minutes.", D),
    ("That didn't help either, the p99 is still 900 ms.", D),
    ("Bumping the ulimit made no difference, the workers still crash.", D),
    ("Lambda is not an option because the job runs for over 15 minutes.", D),
    ("The webpack plugin is incompatible with Node 22, so that path is closed.", D),
    ("We can forget about the rootless Docker route; the kernel lacks user namespaces.", D),
    ("NVSHMEM isn't supported on this driver, so DeepEP is out.", D),
    ("Tried increasing shm-size; still fails with the same bus error. Dead end.", D),
    # pivot
    ("Instead of making each allreduce faster, we should reduce the number of allreduces.", V),
    ("Let's change the communication pattern and use expert parallelism.", V),
    ("Time for a different approach: cache the embeddings on disk.", V),
    ("Pivoting to expert parallelism, which replaces the MoE allreduces with all-to-all.", V),
    ("Let me switch to the flashinfer A2A backend since DeepEP is missing.", V),
    ("Stop trying to patch the vendored copy and pull the fix from upstream.", V),
    ("Rather than fighting the ORM, let's write this query in raw SQL.", V),
    ("We could fall back to polling if the websocket keeps dropping.", V),
    ("Let's take a different route and run the tests inside the CI image.", V),
    ("EP replaces the MoE allreduces with all-to-all, a fundamentally different communication "
     "pattern.", V),
    ("Use the prebuilt wheel instead.", V),
    ("Moving the cache to Redis instead of the local LRU should fix the cross-pod misses.", V),
    ("Another approach: shard the embedding table across the two nodes.", V),
    # decision
    ("Decision: upgrade CUDA to 13 to unblock Blackwell-native kernels.", K),
    ("I've decided to keep TP8 and tune the CUDA graph batch sizes.", K),
    ("We'll go with --cuda-graph-max-bs 128 for the production config.", K),
    ("Going with flashinfer as the attention backend from now on.", K),
    ("Let's upgrade the node pool to 1.30 this week.", K),
    ("The plan is to upgrade the driver first and then rebuild sgl-kernel.", K),
    ("We settled on gRPC for the internal services.", K),
    ("Let's stick with Postgres 15 until the extension supports 16.", K),
    ("Final decision is to ship the fp8 checkpoint.", K),
    ("We're going to standardize on uv for all Python environments.", K),
    ("Opting for the managed Kafka offering rather than running our own brokers.", K),
    # conclusion
    ("This confirms the bottleneck is the 122 allreduces in the verify step.", C),
    ("So the spec decoding overhead comes entirely from communication.", C),
    ("Therefore the PCIe switch is saturated during the all-to-all phase.", C),
    ("The server OOMs at bs=512, which means the CUDA graph pool is too large.", C),
    ("That explains why the first request after a deploy is always slow.", C),
    ("Reducing --cuda-graph-max-bs to 128 improves baseline throughput from 82 to 89.5 tok/s.",
     C),
    ("With the index in place the query is 40% faster.", C),
    ("It turns out the health check was hitting the wrong port.", C),
    ("The root cause is a stale DNS entry in the node's resolv.conf.", C),
    ("Clearly the GC pauses line up with the latency spikes, so the heap is too small.", C),
    ("Connection pooling makes the API 3x faster under load.", C),
    ("This shows that the draft model is not the bottleneck.", C),
    ("Bottom line: the regression is in the tokenizer update.", C),
    ("The culprit is the missing -fPIC flag in the static build.", C),
    # plan
    ("Let me check whether DeepEP is installed.", P),
    ("I'll check the sglang server log for the CUDA graph capture error.", P),
    ("Next, run the benchmark with 8 prompts at concurrency 1.", P),
    ("Need to check which NCCL version torch was built against.", P),
    ("First, let's look at the nginx error log.", P),
    ("I'm going to add a readiness probe and redeploy.", P),
    ("Now let me rebuild sgl-kernel with TORCH_CUDA_ARCH_LIST=12.0.", P),
    ("Let's see what the profiler says about the verify step.", P),
    ("I need to find where the allreduce backend is selected.", P),
    ("Then I'll compare the TPOT with and without EAGLE.", P),
    ("We should verify the certificate is mounted into the pod.", P),
    ("Should we raise the worker count?", P),
    ("Let me rule out the driver before touching the kernel.", P),
    ("Is this a dead end?", P),
    ("To confirm, I'll rerun the failing test with verbose logging.", P),
    # observation
    ("DeepEP is not installed.", OB),
    ("The grep found a single match at line 2197 of server_args.py.", OB),
    ("The server started in 205 seconds and captured 16 CUDA graphs.", OB),
    ("Output throughput is 89.5 tok/s with median TPOT of 11.17 ms.", OB),
    ("nvidia-smi shows all eight GPUs at 88 GB used.", OB),
    ("The container exited with code 1 and no logs.", OB),
    ("Both replicas are healthy and serving traffic.", OB),
    ("The second ssh hop failed with host key verification.", OB),
    ("The migration added three columns and one index.", OB),
    ("Memory usage climbs steadily over about six hours.", OB),
    ("This is not a dead end: the nightly build has SM120 kernels.", OB),
    ("We haven't ruled out the network yet.", OB),
    ("The test suite passes locally but fails in CI on the arm runner.", OB),
    ("It allocated 2 GB instead of 1 GB for the KV cache.", OB),
    ("Latency is dominated by the first token.", OB),
]


# Blind rounds: each list was written in one go and scored once before any rule was changed
# for it (first-pass accuracy in brackets), then the rules were generalised and the list
# joined the development set.
# Round 2 [15/40 = 0.375]
LABELLED += [
    ("Nope — the 570 driver panics on boot with that kernel, so that option is gone.", D),
    ("That whole line of investigation went nowhere.", D),
    ("Marking the io_uring experiment as failed; no measurable gain and two kernel oopses.", D),
    ("Unfortunately the vendor SDK only ships x86 binaries, so there's no way to run it on Graviton.", D),
    ("Tried three different NCCL_ALGO settings and none of them beat Ring.", D),
    ("The JIT path is blocked until FlashInfer ships sm_120 kernels.", D),
    ("Cutlass 3.5 has the same limitation, so no luck there either.", D),
    ("This approach is fundamentally broken for multi-node setups.", D),
    ("❌ symm-mem: KeyError 12", D),
    ("We're stuck: every variant OOMs during graph capture.", D),
    ("Let's attack this from the other side and shrink the model instead of growing the cluster.", V),
    ("New plan: skip the operator and deploy the StatefulSet by hand.", V),
    ("OK, changing strategy — we'll profile in production with eBPF rather than reproduce locally.", V),
    ("Time to try something else: expert parallelism.", V),
    ("Replacing the Python tokenizer with the Rust one should sidestep the GIL entirely.", V),
    ("Going back to the FIFO scheduler since the priority queue starves small jobs.", V),
    ("Final answer: we run TP8 with cuda-graph-max-bs 128.", K),
    ("OK, locking in the fp8 KV cache for the release build.", K),
    ("We'll upgrade to CUDA 13 tonight and rebuild everything.", K),
    ("The choice is clear — Postgres over Mongo for this workload.", K),
    ("Agreed, we'll ship with the conservative timeout values.", K),
    ("Looks like the bottleneck was DNS all along.", C),
    ("The numbers line up: 122 allreduces × 200 µs ≈ 24 ms, exactly the verify overhead.", C),
    ("That accounts for the missing 9% of throughput.", C),
    ("Hence the 502s only show up behind the ALB.", C),
    ("So it really is the PCIe switch that's saturating.", C),
    ("Speculative decoding is net negative here: 54 tok/s versus 82 tok/s without it.", C),
    ("The regression is caused by the new allocator, not by the model change.", C),
    ("Going to bisect the last 20 commits to find where it broke.", P),
    ("Let's grab a flame graph of the decode loop.", P),
    ("Checking the dmesg output on node 4 next.", P),
    ("I want to see whether the cache hit rate changes with larger pages.", P),
    ("Before touching the config, I'd like to reproduce it on staging.", P),
    ("What does the kernel log say around the time of the crash?", P),
    ("The flashinfer A2A backend exists in server_args.py at line 2197.", OB),
    ("Request latency p50 is 120 ms and p99 is 1.8 s.", OB),
    ("Three of the eight ranks report NCCL WARN about the net plugin.", OB),
    ("The image is 4.2 GB, mostly CUDA libraries.", OB),
    ("After the restart the queue drained within a minute.", OB),
    ("No errors in the last 10k lines of the log.", OB),
]
# Round 3 [21/30 = 0.70]
LABELLED += [
    ("Server-side rendering with that framework is out of the question; it needs Node 20 and we're pinned to 18.", D),
    ("Sadly the hot-patch trick doesn't pan out — the symbol is inlined everywhere.", D),
    ("Three rebuilds later it still segfaults in the same place, so I'm calling it.", D),
    ("The upstream issue has been open since 2022 with no fix, so waiting for it is pointless.", D),
    ("Tensor parallel across the two nodes is off the table: the link is 25 GbE.", D),
    ("Couldn't get the ROCm container to see the GPUs at all.", D),
    ("Let's flip it around: precompute the features offline and serve them from S3.", V),
    ("Moving away from Celery toward a plain cron job for the nightly reports.", V),
    ("OK, plan B — run the bench inside the container where the CUDA libs match.", V),
    ("Dropping down to raw NCCL calls instead of going through torch.distributed.", V),
    ("A smarter route is to batch the writes rather than tune the fsync settings.", V),
    ("Alright, we're shipping the Go rewrite next sprint.", K),
    ("Conclusion reached with the team: Terraform for infra, Helm for apps.", K),
    ("I'm picking the 70B checkpoint for the eval runs.", K),
    ("Let's make TP4 + EP2 the default for this box.", K),
    ("Okay — we keep the Redis cache and drop the CDN experiment.", K),
    ("The math checks out: 8 × 48 GB leaves exactly the headroom we measured.", C),
    ("This tells us the draft model's acceptance rate is the real limiter.", C),
    ("Evidently the CPU governor was throttling the benchmark.", C),
    ("Overall, EAGLE-3 only pays off at batch size 1.", C),
    ("The slowdown is entirely due to the extra host-to-device copy.", C),
    ("Gonna tail the ingress logs while I replay the traffic.", P),
    ("Let's dump the NCCL topology with NCCL_DEBUG=INFO.", P),
    ("I'll take a look at the Grafana board for the last 24 hours.", P),
    ("Plan: rebuild the image, push it, then roll the deployment.", P),
    ("Can we reproduce this with a single GPU?", P),
    ("The p99 dropped to 210 ms after the restart, but p50 is unchanged.", OB),
    ("Only rank 0 logged the warning.", OB),
    ("The lockfile pins react 18.2 and react-dom 18.3.", OB),
    ("CPU sits at 40% while the disk queue is saturated.", OB),
]
# Round 4 [17/24 = 0.71]
LABELLED += [
    ("The server is up. Now I'll run the baseline benchmark so we have a reference number.", P),
    ("Good, the import works. Now checking that the kernel actually dispatches to sm_120.", P),
    ("The wheel builds but the resulting .so has no sm_120 cubins, so the JIT path is a bust.", D),
    ("Both attempts OOM during capture. That settles it for the flashinfer A2A backend — not usable on this box.", D),
    ("Interesting — the TTFT is fine but TPOT doubled.", OB),
    ("## Results\n| config | tok/s |\n|---|---|\n| baseline | 82 |\n| EAGLE-3 | 54 |", OB),
    ("Given all that, I think the right move is to upgrade to CUDA 13.", K),
    ("OK here's what we'll do: keep TP8, disable the custom allreduce, and retest EAGLE.", K),
    ("Since NVLink isn't available, let's approach it from the communication side instead.", V),
    ("Forget tuning the kernel; the bigger lever is reducing how many collectives we issue.", V),
    ("Looks like the draft model and target disagree on the tokenizer, which would explain the low acceptance.", C),
    ("The 9% gain comes from freeing memory for a larger KV cache.", C),
    ("That's consistent with the PCIe switch being the bottleneck.", C),
    ("Let me look at how server_args wires moe_a2a_backend.", P),
    ("I'll kick off the nccl-tests all_reduce_perf sweep on all 8 GPUs.", P),
    ("Rebuilding sgl-kernel takes about 40 minutes on this machine.", OB),
    ("The pip install finished without errors and pulled torch 2.10.0+cu130.", OB),
    ("FlashInfer's JIT rejects compute_120a outright.", OB),
    ("EP requires TP and sets ep_size = tp_size automatically.", OB),
    ("We're going with the ring algorithm and leaving NCCL_ALGO unset.", K),
    ("Abandon ship on symmetric memory — torch simply doesn't know sm_120.", D),
    ("Hmm, wait. Maybe the problem is the graph batch list rather than the allreduce.", C),
    ("Next up: verify the EAGLE draft loads with the new CUDA.", P),
    ("The all-to-all version is slower still, 31 tok/s.", OB),
]

# Round 5 [11/20 = 0.55]
LABELLED += [
    ("Pulling the latest nightly and rebuilding the wheel:", P),
    ("Tail of the server log after the crash:", P),
    ("Two of the three canaries failed their health checks after the rollout.", OB),
    ("There's our answer: the kernel was compiled without sm_120 support.", C),
    ("The mmap path is a non-option on this filesystem; it doesn't support huge pages.", D),
    ("We're not going to get NVLink on these cards, full stop, so any design that assumes it is out.", D),
    ("Rolling back to the 0.4.x release instead of debugging the regression further.", V),
    ("Rather than chase the flaky test, I'm going to quarantine it and open a ticket.", V),
    ("Settled: the cache TTL stays at 5 minutes.", K),
    ("We'll standardise on Python 3.12 across all images.", K),
    ("So the p99 spike lines up exactly with the GC pause.", C),
    ("Interesting, so the scheduler never sees more than one request at a time.", C),
    ("Memory is flat at 71 GB across all ranks.", OB),
    ("The patch applied cleanly and the build is green.", OB),
    ("Let me also print the NCCL version torch reports at runtime.", P),
    ("Before anything else, snapshot the current pip freeze.", P),
    ("That doesn't buy us anything: TPOT is identical within noise.", D),
    ("Ok so that's a bust too.", D),
    ("Switching the attention backend to triton to see if the crash follows it.", V),
    ("Going with 0.85 for --mem-fraction-static; it leaves enough room for the draft model.", K),
]
# The campaign fixture's own prose at the story's turning points (message ordinal noted).
LABELLED += [
    ('Speculation makes it *slower*: **54.2 tok/s with EAGLE-3 vs 82.0 tok/s without** (median TPOT 18.5 ms vs 12.2 ms). The acceptance is fine — 2.41 tokens per verify — so each verify step must cost far more than a plain decode step. I need a profile of one verify forward before guessing.',
     C),  # 4012
    ("There it is. A verify forward takes 41.9 ms and **24.4 ms of it is NCCL**: 122 allreduces per verify step (2 per layer x 61 layers), ~200 µs each. On PCIe without NVLink every one of them is latency-bound, which is why a 4-token verify costs 3.4x a normal decode step.\n\nWays to make the allreduce itself cheaper, in the order I'll try them:\n1. FlashInfer allreduce fusion (fuses allreduce + residual + RMSNorm)\n2. SGLang's custom allreduce, which is disabled on >2 PCIe GPUs — force it on\n3. NCCL Tree instead of Ring\n4. torch symmetric-memory allreduce",
     C),  # 4041
    ("So that's that for fusion: FlashInfer's JIT compiles the trtllm fusion kernels with the pip nvcc 12.6, which rejects `compute_120a`, and the comm module only targets SM90/SM100 anyway — there is no SM120 path to build. Crossing it off and restarting the plain EAGLE-3 server; next is the custom allreduce.",
     D),  # 4133
    ("38.2 tok/s — more than 2x worse than NCCL, and far below even the 54 we had. It makes sense in hindsight: the one-shot custom allreduce has every rank read its peers' buffers directly, so all 8 GPUs read from the other 7 at the same time — 56 simultaneous cross-GPU reads through the PCIe switch, which saturates it. NCCL Ring only moves data between neighbours and pipelines it. This one is hopeless on PCIe; reverting the patch.",
     D),  # 4424
    ("Tree can't be used here: NCCL's tree path does a CUDA call that is illegal while a stream is being captured, so CUDA graph capture fails on the very first batch size. Without CUDA graphs decode falls apart (the launch overhead alone would eat the gain), so NCCL Tree is out. Restarting plain EAGLE-3; last candidate is symmetric memory.",
     D),  # 4711
    ("Confirmed: torch's symmetric-memory allreduce has size tables only for SM90 and SM100; SM120 (major 12) isn't in the lookup table, so it crashes before it does anything. Not something a flag can fix on this torch build. That was the last of the four.",
     D),  # 5063
    ("Stepping back from the four failures, they all had the same shape: each tried to make one allreduce cheaper. But NCCL Ring isn't the problem — on PCIe it's about as good as it gets. The problem is the *number* of allreduces: 122 per verify step at ~200 µs each is ~24.4 ms of per-call latency, and no allreduce algorithm makes 122 synchronisations free.\n\nSo: stop making allreduce faster, change the pattern. Expert Parallelism does exactly that — experts are sharded across GPUs and tokens are routed with all-to-all dispatch/combine, which replaces the 61 MoE allreduces per forward. Let me find out how SGLang configures EP.",
     V),  # 5214
    ('Excellent research. EP with deepep looks promising — it replaces MoE allreduces with all-to-all, which is a fundamentally different communication pattern. But I need to check if DeepEP is installed:',
     V),  # 5216
    ("Out of memory during CUDA graph capture: the flashinfer dispatch workspace wants another 3.4 GiB per GPU, on top of the EAGLE-3 draft model and graphs for every batch size up to 512. There's no headroom for that on 96 GB cards with this model, so EP through flashinfer is not going to happen here either.\n\nThe OOM does point at something else, though: we capture CUDA graphs up to bs 512 although this workload only ever decodes at bs 1. That's ~5 GB of graph pool per GPU. Let me see what the plain baseline does with `--cuda-graph-max-bs 128`.",
     D),  # 5222
    ("Decision: upgrade the box to CUDA 13 before anything else.\n\nEvery blocker we hit has the same root cause — SM120 is too new for the CUDA 12.x stack on this box: FlashInfer's JIT has no `compute_120a` path with its nvcc 12.6, torch 2.10+cu128 has no SM120 entry for symmetric memory, and the SM120-native kernels (FP4 MoE, the Blackwell allreduce paths) ship for CUDA 13 first. Tuning around that on 12.8 is a dead end; CUDA 13 with torch cu130 unblocks the Blackwell-native options, and then the allreduce experiments are worth re-running.",
     K),  # 5227
    ("Plan is in the todo list. Before touching the box I'll snapshot the environment (pip freeze, driver version, the launch command with `--cuda-graph-max-bs 128`) so we can roll back. Next session: driver 580 + CUDA 13.0 toolkit, torch cu130, then rebuild sgl-kernel and FlashInfer for SM120.",
     P),  # 5228
    ('`KeyError: 12` — 12 looks like the compute capability major. Checking what torch has in that table:',
     P),  # 5062
    ('Forcing it on by skipping that check (local patch, easy to revert):',
     P),  # 4421
    ('The second half of that hit a quoting problem (the nested ssh), not a real answer. Double-checking with pip:',
     P),  # 5217
    ('EAGLE-3 server is up. Same benchmark:',
     P),  # 4011
    ("Unexpected win: with `--cuda-graph-max-bs 128` (down from the default 512) the baseline does **89.50 tok/s**, median TPOT **11.17 ms**, vs 82 tok/s / 12.2 ms before — +9% on single-stream decode for free, and it leaves ~3 GB per GPU unused. I've kept the flag in the launch command.\n\nWhere we stand on EAGLE-3: every way of making the verify step's communication cheaper has failed on this stack, and EP is blocked as well.",
     D),  # 5225
]


def _scores(cases: list[tuple[str, ProseClass]]) -> tuple[dict[str, tuple[float, float]], float,
                                                           float, list[str]]:
    classes = list(ProseClass)
    tp = dict.fromkeys(classes, 0)
    fp = dict.fromkeys(classes, 0)
    fn = dict.fromkeys(classes, 0)
    wrong = []
    for text, want in cases:
        got = classify_prose(text)
        if got == want:
            tp[want] += 1
        else:
            fp[got] += 1
            fn[want] += 1
            wrong.append(f"  want {want.value:<11} got {got.value:<11} {text!r}")
    per: dict[str, tuple[float, float]] = {}
    for c in classes:
        p = tp[c] / (tp[c] + fp[c]) if tp[c] + fp[c] else 1.0
        r = tp[c] / (tp[c] + fn[c]) if tp[c] + fn[c] else 1.0
        per[c.value] = (p, r)
    macro_p = sum(p for p, _ in per.values()) / len(per)
    macro_r = sum(r for _, r in per.values()) / len(per)
    return per, macro_p, macro_r, wrong


def _report(name: str, cases: list[tuple[str, ProseClass]]) -> tuple[str, float, float, float]:
    per, mp, mr, wrong = _scores(cases)
    acc = 1 - len(wrong) / len(cases)
    lines = [f"{name}: n={len(cases)} accuracy={acc:.3f} macro-P={mp:.3f} macro-R={mr:.3f}"]
    for c, (p, r) in per.items():
        lines.append(f"  {c:<12} P={p:.2f} R={r:.2f}")
    lines += wrong
    return "\n".join(lines), mp, mr, acc


def test_labelled_set_is_big_and_varied() -> None:
    assert len(LABELLED) >= 80
    assert len(HELD_OUT) >= 30
    for cls in ProseClass:
        assert sum(1 for _, c in LABELLED if c == cls) >= 8, cls


def test_precision_recall_on_labelled_set() -> None:
    text, mp, mr, _ = _report("labelled", LABELLED)
    print("\n" + text)
    assert mp >= 0.9 and mr >= 0.9, text


def test_held_out_accuracy() -> None:
    text, _, _, acc = _report("held-out", HELD_OUT)
    print("\n" + text)
    assert acc >= 0.8, text


@pytest.mark.parametrize(
    "text",
    [
        "This is not a dead end.",
        "We are not abandoning EP.",
        "It hasn't been ruled out yet.",
        "Don't give up on EP yet.",
    ],
)
def test_negated_dead_end_is_not_dead_end(text: str) -> None:
    assert classify_prose(text) != ProseClass.DEAD_END
    assert dead_end_phrase(text) is None


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("KeyError: 12 rules that out.", "rules that out"),
        ("This is a dead end.", "dead end"),
        ("The approach is not viable on PCIe.", "not viable"),
        ("| symm-mem | ❌ |", "❌"),
    ],
)
def test_dead_end_phrase(text: str, phrase: str) -> None:
    assert dead_end_phrase(text) == phrase


def test_other_phrases() -> None:
    assert pivot_phrase("Let's use EP instead.") == "instead"
    assert pivot_phrase("Switch to the flashinfer backend.") == "Switch to"
    assert decision_phrase("Decision: upgrade CUDA to 13.") == "Decision:"
    assert decision_phrase("We'll go with TP8.") == "We'll go with"
    assert conclusion_phrase("This confirms the bottleneck.") == "This confirms"
    assert plan_phrase("Let me check the log.") == "Let me"
    assert pivot_phrase("The server is up.") is None
    assert decision_phrase("We haven't decided yet.") is None


def test_precedence_whole_text() -> None:
    text = ("Let me check the custom allreduce numbers. It gives 38 tok/s against 82 tok/s, "
            "so the custom allreduce is a dead end. Let's try EP instead.")
    assert classify_prose(text) == ProseClass.DEAD_END
    assert classify_prose("Let me check the log. This confirms the OOM.") == ProseClass.CONCLUSION


def test_code_blocks_are_ignored() -> None:
    text = "Let me run this:\n```bash\necho 'dead end instead'\n```"
    assert classify_prose(text) == ProseClass.PLAN


@pytest.mark.parametrize("text", ["", "   ", "\x00\x01", "?" * 5000, "❌" * 3, "a" * 100_000])
def test_never_raises(text: str) -> None:
    assert isinstance(classify_prose(text), ProseClass)


def test_keyword_gates_change_nothing() -> None:
    """The keyword gates only skip work: gated and ungated classification agree."""
    from logparse.prose import _classify

    texts = [t for t, _ in LABELLED + HELD_OUT]
    texts += [" ".join(texts[i:i + 7]) for i in range(0, len(texts), 7)]
    texts += ["İstanbul test: this is a dead end", "So the İ cache is the bottleneck."]
    for t in texts:
        assert _classify(t, gated=True) == _classify(t, gated=False), t


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        # the verdicts of the English rows, in the other languages of the pool
        ("Probé con pandas_profiling pero no funcionó con esta versión de Python.",
         "no funcionó"),
        ("Esa opción no es viable: el archivo está en latin-1.", "no es viable"),
        ("O build via Docker não funciona com o caminho antigo.", "não funciona"),
        ("这个方案行不通，KWin 脚本无法调用 matugen。", "行不通"),
    ],
)
def test_dead_end_phrase_in_the_other_languages(text: str, phrase: str) -> None:
    assert dead_end_phrase(text) == phrase
    assert classify_prose(text) == ProseClass.DEAD_END


@pytest.mark.parametrize(
    "text",
    [
        # real lines of the pool that only look like a verdict
        "Si alguno de los dos está vacío se descarta el token con `continue`.",  # conversacion
        "restrições e requisitos não funcionais;",  # pfm-categorization
        "¿no funciona con la versión instalada?",
    ],
)
def test_no_dead_end_in_lines_that_only_look_like_one(text: str) -> None:
    assert dead_end_phrase(text) is None


# ------------------------------------------------------------ es/pt/zh decisions, pivots, findings

@pytest.mark.parametrize("row", LANG_ROWS, ids=lambda r: r.rule)
def test_every_language_row_classes_its_example(row: LangRow) -> None:
    """Walks :data:`logparse.prose.LANG_ROWS`: each example is classed by its own row."""
    assert classify_prose(row.example) == row.cls
    assert prose_rule(row.example, row.cls) == row.rule
    assert row.source.startswith("(no real line yet)") or ":" in row.source or "#" in row.source


def test_every_language_row_has_an_example() -> None:
    """No es/pt/zh row of the pivot, decision and conclusion tables goes without one."""
    from logparse.prose import _CONCLUSION, _DECISION, _PIVOT

    named = {r.rule for r in LANG_ROWS}
    for table in (_PIVOT, _DECISION, _CONCLUSION):
        for name in table:
            if name[:3] in ("es_", "pt_", "zh_"):
                assert name in named, name


@pytest.mark.parametrize(
    "text",
    [
        # real lines of the data that only look like a decision, a pivot or a finding
        "- **Falta** una nota al pie en su lugar, algo como un texto más pequeño al final:",
        "Si decidiste que es **Nivel 1** (la idea es tuya, la IA solo ayudó a redactar), "
        "entonces:",  # conversacion: the user's choice, in a condition
        "Sim, essa premissa está **totalmente alinhada** com o que já está decidido nos "
        "documentos — não é uma mudança de rumo, é a aplicação literal de uma decisão já "
        "fechada",  # pfm-categorization
        "不建议把核心逻辑放进 KWin 脚本。",  # matugen-theme-sync, the clause after the choice
        "También fijate que el segundo `print` decía \"odio\" en vez de \"no odio\".",
        "¿Esto significa que el modelo no reconoce la palabra?",
    ],
)
def test_no_language_row_fires_on_lines_that_only_look_like_one(text: str) -> None:
    for cls in (ProseClass.PIVOT, ProseClass.DECISION, ProseClass.CONCLUSION):
        rule = prose_rule(text, cls) or ""
        assert rule[:3] not in ("es_", "pt_", "zh_"), (cls, rule)


def test_english_is_not_read_with_the_other_languages_negators() -> None:
    """'si' / 'sem' / 'não' negate only the es/pt rows; an English line is classed as before."""
    assert classify_prose("We decided to go with si units everywhere.") == ProseClass.DECISION
    assert classify_prose("Instead, let's switch to the A2A backend.") == ProseClass.PIVOT


def test_an_edit_said_with_gaiwei_is_no_pivot() -> None:
    """matugen-theme-sync #3: '把 … 的 .dark 改为 .default' edits a template; a pivot
    changes to another means ('改为用 jq')."""
    text = "把 Neovim、Zellij 模板的 `.dark` 改为 `.default`，其他大多数模板已经能跟随模式。"
    assert prose_rule(text, ProseClass.PIVOT) is None
