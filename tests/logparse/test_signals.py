"""error_signatures on realistic tool output (measurements: test_measure.py)."""

from __future__ import annotations

import random

import pytest

from fixtures.blackwell import campaign as cp
from logparse.measure import measurements
from logparse.signals import error_signatures, normalise_message

# --------------------------------------------------------------------------- outputs

MSG_5216 = (
    'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
    "ModuleNotFoundError: No module named 'deep_ep'\n---\nHost key verification failed.\n"
)

SYMM_MEM = """\
[rank3]: Traceback (most recent call last):
[rank3]:   File "/root/sglang/python/sglang/srt/managers/scheduler.py", line 2650, in run_scheduler_process
[rank3]:     scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)
[rank3]:   File "/root/ml-env/lib/python3.12/site-packages/torch/distributed/_symmetric_memory/__init__.py", line 1520, in rendezvous
[rank3]:     return _SymmetricMemory.rendezvous(tensor, group_name)
[rank3]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank3]:   File "/root/ml-env/lib/python3.12/site-packages/torch/distributed/_symmetric_memory/__init__.py", line 88, in _get_arch
[rank3]:     return _ARCH_TABLE[major * 10 + minor]
[rank3]:            ~~~~~~~~~~~^^^^^^^^^^^^^^^^^^^^
[rank3]: KeyError: 12
[rank5]: KeyError: 12
"""

FLASHINFER_JIT = """\
[2025-06-11 14:02:11 TP0] flashinfer.jit: Loading JIT ops: trtllm_comm
[1/3] /usr/local/cuda/bin/nvcc --generate-dependencies-with-compile -gencode=arch=compute_120a,code=sm_120a -O3 -std=c++17 -c /root/ml-env/lib/python3.12/site-packages/flashinfer/data/csrc/trtllm_allreduce.cu -o trtllm_allreduce.cuda.o
FAILED: trtllm_allreduce.cuda.o
nvcc fatal   : Unsupported gpu architecture 'compute_120a'
ninja: build stopped: subcommand failed.
Traceback (most recent call last):
  File "/root/ml-env/lib/python3.12/site-packages/flashinfer/jit/cpp_ext.py", line 231, in run_ninja
    subprocess.run(
  File "/usr/lib/python3.12/subprocess.py", line 571, in run
    raise CalledProcessError(retcode, process.args,
subprocess.CalledProcessError: Command '['ninja', '-v', '-C', '/tmp/tmpq1w2e3/cached_ops']' returned non-zero exit status 1.

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/root/sglang/python/sglang/srt/layers/communicator.py", line 77, in <module>
    from flashinfer.comm import trtllm_allreduce_fusion
RuntimeError: Ninja build failed.
"""

NCCL_BENIGN = """\
gpu-node:12345:12345 [0] NCCL INFO Bootstrap : Using eth0:10.1.230.174<0>
gpu-node:12345:12345 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.
gpu-node:12345:12399 [3] NCCL WARN NET/Plugin : Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so
gpu-node:12345:12345 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7
gpu-node:12345:12345 [0] NCCL INFO Connected all rings
"""

NCCL_FAILURE = """\
gpu-node:12345:12399 [3] misc/cudawrap.cc:188 NCCL WARN Cuda failure 'out of memory'
[rank3]: Traceback (most recent call last):
[rank3]:   File "/root/bench.py", line 12, in <module>
[rank3]:     dist.all_reduce(x)
[rank3]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.27.3
[rank3]: ncclUnhandledCudaError: Call to CUDA function failed.
"""

NCCL_WATCHDOG = (
    "[rank2]:[E611 14:02:11.123456789 ProcessGroupNCCL.cpp:632] [Rank 2] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, NumelIn=1, "
    "NumelOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out.\n"
)

CUDA_GRAPH = """\
[2025-06-12 09:14:51 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/root/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 378, in __init__
    self.capture()
torch.AcceleratorError: CUDA error: operation not permitted when stream is capturing
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/root/sglang/python/sglang/srt/managers/scheduler.py", line 2650, in run_scheduler_process
    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)
Exception: Capture cuda graph failed: CUDA error: operation not permitted when stream is capturing
Possible solutions:
1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)
2. set --cuda-graph-max-bs to a smaller value (e.g., 16)

[2025-06-12 09:14:52] Received sigquit from a child process. It usually means the child failed.
Killed
"""

TORCH_OOM = """\
[2025-06-12 10:01:02 TP5] Scheduler hit an exception: Traceback (most recent call last):
  File "/root/sglang/python/sglang/srt/layers/moe/ep_moe/layer.py", line 301, in forward
    output = torch.empty(...)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total capacity of 95.59 GiB of which 1.12 GiB is free.
"""

ILLEGAL_ACCESS = """\
terminate called after throwing an instance of 'c10::Error'
  what():  CUDA error: an illegal memory access was encountered
Aborted (core dumped)
"""

PIP_SUBPROCESS = """\
  error: subprocess-exited-with-error

  × Getting requirements to build wheel did not run successfully.
  │ exit code: 1
  ╰─> [17 lines of output]
      Traceback (most recent call last):
        File "/root/ml-env/lib/python3.12/site-packages/pip/_vendor/pyproject_hooks/_in_process/_in_process.py", line 389, in <module>
          main()
      ModuleNotFoundError: No module named 'torch'
      [end of output]
"""

VLLM_TB = (
    "ERROR 06-11 14:02:11 [core.py:586] Traceback (most recent call last):\n"
    'ERROR 06-11 14:02:11 [core.py:586]   File "/x.py", line 1, in <module>\n'
    "ERROR 06-11 14:02:11 [core.py:586] AssertionError\n"
)

COMPILER = """\
/root/DeepEP/csrc/kernels/internode.cu(412): error: identifier "__nv_fp8x4_e4m3" is undefined
/root/DeepEP/csrc/kernels/runtime.cu:12:10: fatal error: nvshmem.h: No such file or directory
   12 | #include <nvshmem.h>
      |          ^~~~~~~~~~~
compilation terminated.
"""

POSITIVE: list[tuple[str, str, list[str]]] = [
    ("fixture message 5216", MSG_5216, ["ModuleNotFoundError: deep_ep",
                                        "Host key verification failed"]),
    ("torch symmetric memory KeyError", SYMM_MEM, ["KeyError: 12"]),
    ("flashinfer JIT for sm_120a", FLASHINFER_JIT, [
        "Unsupported gpu architecture 'compute_120a'",
        "ninja: build stopped: subcommand failed",
        "CalledProcessError: Command '['ninja', '-v', '-C', '<tmp>']' returned non-zero exit "
        "status 1",
        "RuntimeError: Ninja build failed"]),
    ("NCCL failure", NCCL_FAILURE, ["CUDA out of memory", "NCCL error: unhandled cuda error"]),
    ("NCCL watchdog", NCCL_WATCHDOG, ["NCCL error: collective operation timeout"]),
    ("CUDA graph capture", CUDA_GRAPH, [
        "CUDA error: operation not permitted when stream is capturing", "Killed"]),
    ("torch OOM", TORCH_OOM, ["CUDA out of memory"]),
    ("CUDA error OOM", "RuntimeError: CUDA error: out of memory\n", ["CUDA out of memory"]),
    ("OOM in a JSON API error",
     '{"object":"error","message":"CUDA out of memory. Tried to allocate 2.00 GiB"}\n',
     ["CUDA out of memory"]),
    ("illegal memory access", ILLEGAL_ACCESS, [
        "terminate called after throwing 'c10::Error'",
        "CUDA error: an illegal memory access was encountered", "Aborted (core dumped)"]),
    ("pip show", "WARNING: Package(s) not found: deep_ep\n", ["Package(s) not found: deep_ep"]),
    ("pip install", "Looking in indexes: https://pypi.org/simple\nERROR: Could not find a version "
     "that satisfies the requirement deep_ep (from versions: none)\nERROR: No matching "
     "distribution found for deep_ep\n", ["No matching distribution found for deep_ep"]),
    ("pip build isolation", PIP_SUBPROCESS, ["error: subprocess-exited-with-error",
                                             "ModuleNotFoundError: torch"]),
    ("apt", "Reading package lists... Done\nE: Unable to locate package libnvshmem3\n",
     ["E: Unable to locate package libnvshmem3"]),
    ("ssh timeout", "ssh: connect to host 10.1.230.175 port 22: Connection timed out\n",
     ["Connection timed out"]),
    ("ssh key", "root@10.1.230.174: Permission denied (publickey).\n",
     ["Permission denied (publickey)"]),
    ("ssh dns", "ssh: Could not resolve hostname gpu-box-2: Name or service not known\n",
     ["Could not resolve hostname"]),
    ("ssh closed", "Connection closed by 10.1.230.174 port 22\n",
     ["Connection closed by remote host"]),
    ("ssh refused", "ssh: connect to host 10.1.230.174 port 2222: Connection refused\n",
     ["Connection refused"]),
    ("ssh no route", "ssh: connect to host 10.1.2.3 port 22: No route to host\n",
     ["No route to host"]),
    ("ssh broken pipe", "client_loop: send disconnect: Broken pipe\n", ["Broken pipe"]),
    ("python refused", "ConnectionRefusedError: [Errno 111] Connection refused\n",
     ["Connection refused"]),
    ("bash command not found", "bash: line 1: nvcc: command not found\n",
     ["command not found: nvcc"]),
    ("bash command not found 2", "bash: nvidia-smi: command not found\n",
     ["command not found: nvidia-smi"]),
    ("dash not found", "/bin/sh: 1: nvcc: not found\n", ["command not found: nvcc"]),
    ("zsh not found", "zsh: command not found: uv\n", ["command not found: uv"]),
    ("python can't open file",
     "python3: can't open file '/root/bench_spec.py': [Errno 2] No such file or directory\n",
     ["No such file or directory"]),
    ("bash no such file", "bash: /root/run.sh: No such file or directory\n",
     ["No such file or directory"]),
    ("killed", "bash: line 1: 48213 Killed                  python3 -m sglang.launch_server\n",
     ["Killed"]),
    ("oom killer", "Out of memory: Killed process 4242 (python3) total-vm:123kB\n",
     ["out of memory"]),
    # Go, the JVM, Kubernetes, AWS, PostgreSQL, Maven
    ("go race", "WARNING: DATA RACE\nWrite at 0x00c0001 by goroutine 7:\n--- FAIL: "
     "TestTransfer (0.12s)\nFAIL\n", ["WARNING: DATA RACE", "--- FAIL: TestTransfer"]),
    ("go build", "# acme/ledger\n./ledger.go:12:2: undefined: mutex\n",
     ["undefined: mutex"]),
    ("go panic", "panic: runtime error: invalid memory address or nil pointer dereference\n",
     ["panic: runtime error: invalid memory address or nil pointer dereference"]),
    ("go deadlock", "fatal error: all goroutines are asleep - deadlock!\n",
     ["fatal error: all goroutines are asleep - deadlock!"]),
    ("aws sdk", "Error: configuring Terraform AWS Provider: validating provider credentials: "
     "retrieving caller identity from STS: operation error STS: GetCallerIdentity, https "
     "response error StatusCode: 403, api error InvalidClientTokenId: The security token "
     "included in the request is invalid.\n",
     ["api error InvalidClientTokenId: The security token included in the request is invalid"]),
    ("aws cli", "An error occurred (AccessDenied) when calling the AssumeRole operation: no\n",
     ["An error occurred (AccessDenied) when calling the AssumeRole operation"]),
    ("kubectl", 'Error from server (Forbidden): pods is forbidden: User "ci" cannot list\n',
     ["Error from server (Forbidden)"]),
    ("oomkilled", "    Reason:       OOMKilled\n    Exit Code:    137\n", ["OOMKilled"]),
    ("jvm", 'Exception in thread "main" java.lang.NoSuchMethodError: a.B.c()V\n',
     ["NoSuchMethodError: a.B.c()V"]),
    ("postgres", "ERROR:  canceling statement due to lock timeout\n",
     ["ERROR: canceling statement due to lock timeout"]),
    ("psql", 'psql: error: connection to server at "db" (10.0.0.5), port 5432 failed: FATAL:  '
     'password authentication failed for user "app"\n',
     ['FATAL: password authentication failed for user "app"']),
    ("docker daemon", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
     "Is the docker daemon running?\n", ["Cannot connect to the Docker daemon"]),
    ("permission", "bash: ./deploy.sh: Permission denied\n", ["Permission denied"]),
    ("pytest summary", "FAILED tests/test_api.py::test_create - AssertionError: assert 500 == "
     "201\nFAILED tests/test_api.py::test_list\n",
     ["AssertionError: assert 500 == 201", "FAILED tests/test_api.py::test_list"]),
    ("http 5xx", "HTTP/1.1 502 Bad Gateway\nServer: nginx\n", ["HTTP 502 Bad Gateway"]),
    ("http 200", "HTTP/1.1 200 OK\n", []),
    ("curl ssl", "curl: (60) SSL certificate problem: unable to get local issuer certificate\n",
     ["curl: (60) SSL certificate problem: unable to get local issuer certificate"]),
    ("disk full", "write /var/lib/docker/tmp: no space left on device\n",
     ["No space left on device"]),
    ("git push", " ! [rejected]        main -> main (non-fast-forward)\nerror: failed to push "
     "some refs to 'origin'\n",
     ["git push rejected (non-fast-forward)", "error: failed to push some refs"]),
    ("systemd", "Job for nginx.service failed because the control process exited with error "
     "code.\n", ["Job for nginx.service failed"]),
    ("gradle", "FAILURE: Build failed with an exception.\n* What went wrong:\nExecution failed "
     "for task ':app:compileJava'.\n", ["Execution failed for task :app:compileJava"]),
    ("next build", "Failed to compile.\n\n./src/components/Icon.tsx:4:11\nType error: 'Star' "
     "cannot be used as a JSX component.\n  Its type is not a valid JSX element type. (TS2786)\n",
     ["Type error: 'Star' cannot be used as a JSX component"]),
    ("webpack", "Module not found: Error: Can't resolve './Button' in '/app/src'\n",
     ["Module not found: Can't resolve './Button'"]),
    ("vite", '[vite]: Rollup failed to resolve import "lodash" from "src/main.ts".\n',
     ['failed to resolve import "lodash"']),
    ("maven", "[ERROR] Failed to execute goal on project app: Could not resolve dependencies "
     "for project com.acme:app:jar:1.0: Could not find artifact com.acme:lib:jar:2.0\n",
     ["Could not resolve dependencies for com.acme:app:jar:1.0"]),
    ("torchrun -9", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
     "launch.py FAILED\n  exitcode  : -9 (pid: 4242)\n", ["ChildFailedError", "Killed"]),
    ("segfault", "Fatal Python error: Segmentation fault\n\nSegmentation fault (core dumped)\n",
     ["Segmentation fault"]),
    ("curl timeout", "curl: (28) Operation timed out after 5001 milliseconds with 0 bytes\n",
     ["Timed out"]),
    ("curl not up", "curl: (7) Failed to connect to 127.0.0.1 port 30000 after 0 ms: Couldn't "
     "connect to server\n", ["Couldn't connect to server"]),
    ("opencode bash timeout", "\n<bash_metadata>\nbash tool terminated command after exceeding "
     "timeout 120000 ms\n</bash_metadata>", ["Timed out"]),
    ("script timeout", "waiting...\nTIMEOUT waiting for server\n", ["Timed out"]),
    ("nvcc fatal", "nvcc fatal   : Value 'sm_120a' is not defined for option 'gpu-architecture'\n",
     ["nvcc fatal: Value 'sm_120a' is not defined for option 'gpu-architecture'"]),
    ("compiler", COMPILER, ['error: identifier "__nv_fp8x4_e4m3" is undefined',
                            "fatal error: nvshmem.h: No such file or directory"]),
    ("import name", "ImportError: cannot import name 'trtllm_allreduce_fusion' from "
     "'flashinfer.comm' (/root/ml-env/lib/python3.12/site-packages/flashinfer/comm/__init__.py)\n",
     ["ImportError: trtllm_allreduce_fusion"]),
    ("python -m", "/root/ml-env/bin/python3: No module named sglang.bench_x\n",
     ["ModuleNotFoundError: sglang.bench_x"]),
    ("address in use", "OSError: [Errno 98] Address already in use\n", ["Address already in use"]),
    ("uvicorn address in use", "ERROR:    [Errno 98] error while attempting to bind on address "
     "('0.0.0.0', 30000): address already in use\n", ["Address already in use"]),
    ("pytest", "E       KeyError: 'model.layers.0.mlp.experts.w13_weight'\n",
     ["KeyError: 'model.layers.0.mlp.experts.w13_weight'"]),
    ("vLLM prefixed traceback", VLLM_TB, ["AssertionError"]),
    ("KeyboardInterrupt", 'Traceback (most recent call last):\n  File "x.py", line 3, in '
     "<module>\n    main()\nKeyboardInterrupt\n", ["KeyboardInterrupt"]),
    ("git", "fatal: not a git repository (or any of the parent directories): .git\n",
     ["fatal: not a git repository (or any of the parent directories): .git"]),
    ("bash quoting", "bash: -c: line 1: syntax error near unexpected token `('\n",
     ["bash: syntax error near unexpected token '('"]),
    ("normalised message",
     "RuntimeError: Failed to open /tmp/tmpab12cd/x.sock at 0x7f3a2b1c9d00 pid 123456\n",
     ["RuntimeError: Failed to open <tmp> at <hex> pid <n>"]),
]


def _server_log() -> str:
    rng = random.Random(7)
    now = 1_750_000_000_000
    return "\n".join(cp.startup_log(rng, now) + cp.decode_lines(rng, now, 60, 89.5)) + "\n"


NEGATIVE: list[tuple[str, str]] = [
    ("empty", ""),
    ("sglang startup log", _server_log()),
    ("nvidia-smi", cp.nvidia_smi(random.Random(3), 1_750_000_000_000)),
    ("bench_serving", cp.bench_block(random.Random(4), 89.5, accept_length=3.21)),
    ("grep of source with exception names", """\
/root/sglang/python/sglang/srt/utils.py:412:    except ModuleNotFoundError:
/root/sglang/python/sglang/srt/utils.py:413:        raise KeyError(f"unknown arch {arch}")
/root/sglang/python/sglang/srt/server_args.py:2201:            logger.warning("CUDA out of memory: reduce --mem-fraction-static")
/root/sglang/python/sglang/srt/server_args.py:2210:            raise ValueError("Connection refused by the scheduler")
"""),
    ("grep -n without file names", '2197:        if self.moe_a2a_backend == "flashinfer":\n'),
    ("read tool output of source", """\
<file>
00010| def f():
00011|     try:
00012|         import deep_ep
00013|     except ModuleNotFoundError:
00014|         raise RuntimeError("Connection refused")
00015|     # Segmentation fault handling
00016|     ERRORS = {"ncclSystemError": "unhandled system error", "killed": "Killed"}
</file>
"""),
    ("cat of a python script", 'import sys\n\ntry:\n    import deep_ep\nexcept ImportError:\n'
     '    print("Killed")\n    sys.exit("TIMEOUT")\nraise KeyError(12)\n'),
    ("config dump", "server_args=ServerArgs(model_path='/root/models/Kimi-K2.5', tp_size=8, "
     "log_level='error', on_error='raise')\nerror_rate: 0.0\nerrors: 0\ntimeout: 600\n"
     "Timeout: 30\n--timeout 600\n0 errors, 0 failures\n"),
    ("NCCL info and benign warnings", NCCL_BENIGN),
    ("python warnings", "/usr/lib/python3/dist-packages/torch/cuda/__init__.py:61: "
     "FutureWarning: The pynvml package is deprecated.\nUserWarning: something\n"),
    ("ls probe", "ls: cannot access '/root/x': No such file or directory\n"),
    ("find noise", "find: '/proc/1/task': Permission denied\n/root/models/Kimi-K2.5\n"),
    ("ls -l", "total 16\n-rw-r--r-- 1 root root 1234 Jun 11 14:02 bench.py\n"),
    ("pip list", "Package    Version\n---------- -------\ntorch      2.10.0\nsglang     0.5.3\n"),
    ("prose", "The error rate stays at 0% and no request failed the health check."),
    ("git log", "a1b2c3d Fix KeyError: 12 in symm mem lookup\nd4e5f6a Handle Connection refused "
     "during warmup\ne7f8a9b Retry the test that timed out\n"),
    ("pytest pass", "tests/test_x.py::test_error_handling PASSED\ntests/test_x.py::test_timeout "
     "PASSED\n==== 2 passed in 0.12s ====\n"),
    ("env", "NCCL_DEBUG=INFO\nTORCH_NCCL_ASYNC_ERROR_HANDLING=1\nNCCL_TIMEOUT=600\n"),
    ("docstring", "Raises:\n    KeyError: if the arch is not in the table.\n"),
    ("diff", "-    raise KeyError(arch)\n+    raise RuntimeError(f\"unsupported arch {arch}\")\n"),
    ("argparse help", "  --timeout TIMEOUT     Timeout in seconds (default: 600)\n"),
    ("json", '{"error": null, "status": "ok", "timeout": 30}\n'),
]


@pytest.mark.parametrize(("name", "output", "want"), POSITIVE, ids=[c[0] for c in POSITIVE])
def test_error_signatures(name: str, output: str, want: list[str]) -> None:
    assert error_signatures(output) == want


@pytest.mark.parametrize(("name", "output"), NEGATIVE, ids=[c[0] for c in NEGATIVE])
def test_no_false_positives(name: str, output: str) -> None:
    assert error_signatures(output) == []


def test_order_of_appearance_and_dedup() -> None:
    out = "ssh: connect to host a port 22: Connection refused\n" + SYMM_MEM + MSG_5216 + SYMM_MEM
    assert error_signatures(out) == ["Connection refused", "KeyError: 12",
                                     "ModuleNotFoundError: deep_ep",
                                     "Host key verification failed"]


def test_signature_of_failure_inside_long_clean_log() -> None:
    out = _server_log() + TORCH_OOM + _server_log()
    assert error_signatures(out) == ["CUDA out of memory"]


def test_messages_are_truncated() -> None:
    (sig,) = error_signatures("ValueError: " + "x" * 300 + "\n")
    assert sig.startswith("ValueError: xxx") and len(sig) <= 12 + 100


def test_normalise_message() -> None:
    assert normalise_message("at 0xdeadbeef in /tmp/tmpx1/y.py, pid 4242424") == \
        "at <hex> in <tmp>, pid <n>"
    assert normalise_message("  KeyError   12 . ") == "KeyError 12"


GARBAGE = [
    "", "\x00" * 1000, "\ud800\udfff broken surrogates", "Traceback (most recent call last):",
    "Traceback (most recent call last):\n" * 100, ":" * 10_000, "1" * 100_000,
    "Error:" * 5000, "E: " * 3000, "(tok/s): " * 2000, "|---|\n| 1 ms |" * 500,
    "\r\r\r\n\n\x1b[31mKilled\x1b[0m\r", "💥" * 1000, "0x" + "f" * 10_000 + " tok/s",
    "".join(chr(i) for i in range(0, 0x3000, 7)),
]


@pytest.mark.parametrize("text", GARBAGE + [None, 123, b"Killed"])  # type: ignore[list-item]
def test_never_raise(text: str) -> None:
    assert isinstance(error_signatures(text), list)
    assert isinstance(measurements(text), list)


def test_random_garbage_never_raises() -> None:
    rng = random.Random(0)
    alphabet = "Error:Traceback KeyError E: |/s tok/s ms 0123456789.,:=()%x\n\r\t\x1b[]'\"\\µ█"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))
        error_signatures(text)
        measurements(text)


_CUT = ("\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout 15000 ms. "
        "If this command is expected to take longer and is not waiting for interactive input, "
        "retry with a larger timeout value in milliseconds.\n</shell_metadata>\n")


@pytest.mark.parametrize("screen", [
    "\x1b[36m◆\x1b[39m  Select session to export\n│  ● Fix the login (5/22/2026)\n"
    "│  ↑/↓ to select • Enter: confirm • Type: to search\n└\n",
    "The following packages will be installed:\n  libfoo\nDo you want to continue? [Y/n] ",
    "Need to install the following packages:\n  create-vite@5.2.0\nOk to proceed? (y) ",
    "Username for 'https://github.com': ",
    "[sudo] password for deploy: ",
    "? Which template would you like to use? (Use arrow keys)\n❯ react\n  vue\n",
    "Would remove:\n  /srv/app/.venv/lib/x\nProceed (Y/n)? ",
    "Overwrite file? (y/N) ",
    "The following packages will be downloaded:\n  numpy-2.1\nProceed ([y]/n)? ",
    "Press ENTER to continue",
])
def test_a_timeout_at_a_prompt_says_the_run_waited_for_input(screen: str) -> None:
    assert error_signatures(screen + _CUT) == ["Timed out waiting for interactive input"]


@pytest.mark.parametrize("screen", [
    "[Wed May 20 01:14:59 2026] PHP 8.2.30 Development Server (http://localhost:8080) started\n",
    "(no output)\n",
    "⠼ Starting WordPress server…\n",
    "Use the menu to select a page, arrow keys to navigate.\nServer listening on :8080\n",
    "Are you sure? is what the docs ask before a delete; we skip it.\nDownloading 80%\n"
    "Downloading 90%\nDownloading 91%\nDownloading 92%\nDownloading 93%\nDownloading 94%\n"
    "Downloading 95%\n",
])
def test_a_timeout_without_a_prompt_on_screen_stays_a_plain_timeout(screen: str) -> None:
    assert error_signatures(screen + _CUT) == ["Timed out"]


# pool/uicomponents__session-wordpress.json #200 (trimmed): `curl … | python -c …` with
# both streams captured; the script printed the page title before the traceback's last line
STDOUT_IN_TRACEBACK = """\
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "C:\\Users\\salma\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\encodings\\cp1252.py", line 19, in encode
    return codecs.charmap_encode(input,self.errors,encoding_table)[0]
Showcase
---
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
UnicodeEncodeError: 'charmap' codec can't encode character '\\u2192' in position 1189: character maps to <undefined>
"""


def test_a_traceback_ends_with_its_exception_not_with_what_stdout_printed() -> None:
    sigs = error_signatures(STDOUT_IN_TRACEBACK)
    assert sigs and sigs[0].startswith("UnicodeEncodeError: 'charmap' codec")
    assert "Showcase" not in sigs
    # an exception with no message is one too
    assert error_signatures("Traceback (most recent call last):\n  File \"x.py\", line 3\n"
                            "KeyboardInterrupt\n") == ["KeyboardInterrupt"]
