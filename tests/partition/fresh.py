"""A fresh Python process that compiles kernels, limited in CPU time rather than in wall time.

A compile takes tens of seconds of CPU; on a busy machine its wall time can be ten times that (two such tests once
failed on a 900 s wall-clock timeout). The limit is on the CPU the process uses (``RLIMIT_CPU``, POSIX), which the
machine's load does not change, so a failure means a compile really costs more than it should; the wall-clock
timeout is only a guard against a process that hangs.
"""

from __future__ import annotations

import subprocess
import sys

try:
    import resource
except ImportError:  # (not POSIX: the wall-clock guard alone)
    resource = None

CPU_SECONDS = 600  # far above a compile of every kernel (about a minute of CPU, benchmarks/README.md)
WALL_SECONDS = 20 * CPU_SECONDS


def run(args: list[str], env: dict, cpu: int = CPU_SECONDS, **kwargs) -> subprocess.CompletedProcess:
    """``python *args`` in a fresh process with ``env``; fails (signal) past ``cpu`` seconds of CPU."""
    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 10))

    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=WALL_SECONDS,
                          preexec_fn=limit if resource is not None else None, **kwargs)
