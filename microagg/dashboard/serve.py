"""Several dashboard server processes behind one address, for a class larger than one process serves well.

One ``streamlit run app.py`` runs every session's script in a thread of one Python interpreter, so it computes on
one core at a time: on two cores, thirty students changing widgets together waited 2.9 s (median) and 7.5 s (p95)
per change on one process, 0.3 s and 1.5 s on two (``benchmarks/bench_class.py``; README, "A class on one server").

    python -m microagg.dashboard.serve --processes 2 --address 0.0.0.0 --port 8501

starts that many ``streamlit run app.py`` on private ports of this machine (``port + 1``, ``port + 2``, …) and
forwards the public ``port`` to them. A browser's first request is given to the next process in turn, and the
response carries a cookie naming that process; the browser's later connections (its page, its websocket, its file
uploads and downloads) bring the cookie back and reach the process that holds its session. Arguments after ``--``
go to every ``streamlit run`` (``-- --server.maxUploadSize 50``).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from ..base.errors import MicroaggError

COOKIE = "microagg-server"
HEAD_MAX = 65536  # bytes of a request's or response's head


def chosen(head: bytes, processes: int) -> int | None:
    """The process a request's head names in its cookie, or None (no such cookie, or not one of ``processes``)."""
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() != b"cookie":
            continue
        for part in value.split(b";"):
            key, _, j = part.strip().partition(b"=")
            if key == COOKIE.encode() and j.isdigit() and int(j) < processes:
                return int(j)
    return None


def with_cookie(head: bytes, j: int) -> bytes:
    """A response head with the cookie naming process ``j`` added (a protocol switch is left as it is)."""
    status = head.split(b"\r\n", 1)[0].split(b" ")
    if len(status) > 1 and status[1] == b"101":
        return head
    cookie = f"Set-Cookie: {COOKIE}={j}; Path=/; HttpOnly; SameSite=Lax\r\n".encode()
    return head[:-2] + cookie + b"\r\n"


class Balancer:
    """The public port: each connection forwarded, byte for byte, to the process its cookie names (else the next)."""

    def __init__(self, ports: list[int]):
        self.ports = ports
        self.turn = itertools.cycle(range(len(ports)))

    async def connection(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            head = await client_r.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            client_w.close()
            return
        j = chosen(head, len(self.ports))
        new = j is None
        j = next(self.turn) if new else j
        try:
            server_r, server_w = await asyncio.open_connection("127.0.0.1", self.ports[j], limit=HEAD_MAX)
        except OSError:
            client_w.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client_w.close()
            return
        server_w.write(head)
        if new:  # the first response of a browser without the cookie gets it
            try:
                client_w.write(with_cookie(await server_r.readuntil(b"\r\n\r\n"), j))
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                client_w.close()
                server_w.close()
                return
        await asyncio.gather(_pipe(client_r, server_w), _pipe(server_r, client_w))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


def start(app: Path, ports: list[int], options: list[str]) -> list[subprocess.Popen]:
    """``streamlit run app`` on each of ``ports`` (this machine only), waited for until each answers."""
    # run from the app's folder, which holds its .streamlit/config.toml; the banner (naming a private port) unseen
    procs = [subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(p),
                               "--server.address", "127.0.0.1", "--server.headless", "true", *options],
                              cwd=app.parent, stdout=subprocess.DEVNULL)
             for p in ports]
    for proc, port in zip(procs, ports):
        if not answering(port, proc):
            stopped = proc.poll() is not None
            stop(procs)
            if stopped:
                raise MicroaggError(f"the dashboard server on port {port} stopped at its start (exit code "
                                    f"{proc.returncode}); its messages are above.")
            raise MicroaggError(f"the dashboard server on port {port} did not answer within 150 s.")
    return procs


def answering(port: int, proc: subprocess.Popen | None = None, seconds: float = 150) -> bool:
    """Whether the server on ``port`` of this machine answers its health check within ``seconds`` (False as soon
    as ``proc``, the process that should serve it, has stopped)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
            return True
        except OSError:
            time.sleep(0.25)
    return False


def stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The options of ``serve``, and those after ``--`` for ``streamlit run``."""
    options = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(prog="python -m microagg.dashboard.serve",
                                 description="Several dashboard processes behind one address.")
    ap.add_argument("--processes", type=int, default=min(os.cpu_count() or 1, 8),
                    help="streamlit processes (default: the cores, at most 8)")
    ap.add_argument("--port", type=int, default=8501, help="the public port (default 8501); the processes take the "
                                                           "next ones")
    ap.add_argument("--address", default="127.0.0.1", help="the public address (0.0.0.0: every network interface)")
    ap.add_argument("--app", type=Path, default=Path(__file__).resolve().parents[2] / "app.py",
                    help="the dashboard's entry file (default: app.py beside the package)")
    args = ap.parse_args(argv)
    if args.processes < 1:
        raise MicroaggError(f"--processes must be at least 1; got {args.processes}.")
    if not 0 < args.port < 65536 - args.processes:
        raise MicroaggError(f"--port must leave room for {args.processes} more ports below 65536; got {args.port}.")
    if not args.app.is_file():
        raise MicroaggError(f"no dashboard entry file at {args.app}; give its path with --app.")
    return args, options


async def serve(args: argparse.Namespace, options: list[str], ready=None) -> None:
    """Start the processes and forward the public port to them until cancelled; ``ready`` (an asyncio.Event) is set
    once the public port answers."""
    ports = [args.port + 1 + j for j in range(args.processes)]
    try:
        server = await asyncio.start_server(Balancer(ports).connection, args.address, args.port, limit=HEAD_MAX)
    except OSError as exc:
        raise MicroaggError(f"cannot listen on {args.address}:{args.port}: {exc.strerror}.") from None
    try:
        procs = start(args.app, ports, options)
    except MicroaggError:
        server.close()
        raise
    print(f"microagg dashboard: {args.processes} processes behind http://{args.address}:{args.port}", flush=True)
    try:
        async with server:
            if ready is not None:
                ready.set()
            await server.serve_forever()
    finally:
        stop(procs)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _interrupt)  # stopped like Ctrl+C: the processes are stopped with it
    try:
        args, options = parse(sys.argv[1:] if argv is None else argv)
        asyncio.run(serve(args, options))
    except MicroaggError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
