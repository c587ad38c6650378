"""Several dashboard server processes behind one address, for a class larger than one process serves well.

One ``streamlit run app.py`` runs every session's script in a thread of one Python interpreter, so it computes on
one core at a time: on two cores, thirty students changing widgets together waited 2.9 s (median) and 7.5 s (p95)
per change on one process, 0.3 s and 1.5 s on two (``benchmarks/bench_class.py``; README, "A class on one server").

    python -m microagg.dashboard.serve --processes 2 --address 0.0.0.0 --port 8501

starts that many ``streamlit run app.py`` on private ports of this machine (``port + 1``, ``port + 2``, …) and
forwards the public ``port`` to them. A browser's first request is given to the next process in turn, and the
response carries a cookie naming that process; the browser's later connections (its page, its websocket, its file
uploads and downloads) bring the cookie back and reach the process that holds its session. Should a process stop,
the balancer says so once and sends its browsers to the others (their pages start again); a request without a body
that it refused or left unanswered as it stopped goes to another process. A stopped process is started again on its
port (``keep``), so the class gets its capacity back without the lecturer; one that cannot start is tried again
after a minute. Every request of one
connection goes to one process: browsers open connections of their own, but behind another proxy that pools its
connections, route by the cookie there instead. Arguments after ``--``
go to every ``streamlit run`` (``-- --server.maxUploadSize 50``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from ..base.errors import MicroaggError, Parser

COOKIE = "microagg-server"
HEAD_MAX = 65536  # bytes of a request's or response's head
HEAD_WAIT = 30  # seconds a new connection may take to send its request's head
CHECK = 2.0  # seconds between two looks at the processes (``keep``)
RETRY = 60.0  # seconds before a process that could not start again is tried once more


def fields(head: bytes):
    """(name in lower case, value) of every header field of a request's or response's head."""
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        yield name.strip().lower(), value


def chosen(head: bytes, processes: int) -> int | None:
    """The process a request's head names in its cookie, or None (no such cookie, or not one of ``processes``)."""
    valid = {str(j).encode(): j for j in range(processes)}
    for name, value in fields(head):
        if name != b"cookie":
            continue
        for part in value.split(b";"):
            key, _, j = part.strip().partition(b"=")
            if key == COOKIE.encode() and j in valid:
                return valid[j]
    return None


def with_cookie(head: bytes, j: int) -> bytes:
    """A response head with the cookie naming process ``j`` added (a websocket's switch of protocol too: a browser
    whose cookie named a process no longer there reconnects its page that way)."""
    cookie = f"Set-Cookie: {COOKIE}={j}; Path=/; HttpOnly; SameSite=Lax\r\n".encode()
    return head[:-2] + cookie + b"\r\n"


def status(head: bytes) -> int:
    """The status code of a response head (0 if it has none)."""
    code = head.split(b"\r\n", 1)[0].split(b" ")
    return int(code[1]) if len(code) > 1 and code[1].isdigit() and len(code[1]) == 3 else 0


def replayable(head: bytes) -> bool:
    """Whether a request can be sent again to another process: a GET or HEAD without a body (a page, a file, a
    websocket's upgrade), so nothing of it was read past its head."""
    names = {name for name, _ in fields(head)}
    return head.split(b" ", 1)[0] in (b"GET", b"HEAD") and not names & {b"content-length", b"transfer-encoding"}


def reply(writer: asyncio.StreamWriter, code: str, text: str) -> None:
    """Answer a request the balancer cannot forward, with ``text`` for the person reading it, and close."""
    body = text.encode()
    writer.write(f"HTTP/1.1 {code}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
                 f"Connection: close\r\n\r\n".encode() + body)
    writer.close()


class Balancer:
    """The public port: each connection forwarded, byte for byte, to the process its cookie names, else (no cookie,
    or that process has stopped) to the next running one in turn, whose first response then carries the cookie."""

    def __init__(self, ports: list[int], procs: list[subprocess.Popen] | None = None):
        self.ports, self.procs = ports, procs
        self.turn = itertools.cycle(range(len(ports)))
        self.told: set[int] = set()  # processes found stopped (said once)

    def running(self, j: int) -> bool:
        """Whether process ``j`` still runs (said once on stderr when it is found stopped)."""
        if self.procs is None or self.procs[j].poll() is None:
            return True
        if j not in self.told:
            self.told.add(j)
            print(f"microagg dashboard: the process on port {self.ports[j]} stopped (exit code "
                  f"{self.procs[j].returncode}); its browsers go to the others, with their pages started again",
                  file=sys.stderr, flush=True)
        return False

    def next_running(self, tried: frozenset[int] = frozenset()) -> int | None:
        """The next running process in turn, other than those ``tried``; None if there is none."""
        for _ in self.ports:
            j = next(self.turn)
            if j not in tried and self.running(j):
                return j
        return None

    async def connection(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        """Forward one client connection (every request on it goes to one process); when the balancer stops, the
        connection ends with it, quietly."""
        try:
            await self._forward(client_r, client_w)
        except asyncio.CancelledError:
            client_w.close()

    async def _forward(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(client_r.readuntil(b"\r\n\r\n"), HEAD_WAIT)
        except asyncio.LimitOverrunError:
            return reply(client_w, "431 Request Header Fields Too Large", "request head over 64 KiB")
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            client_w.close()
            return
        j = chosen(head, len(self.ports))
        new = j is None or not self.running(j)
        j = self.next_running() if new else j
        if j is None:
            return reply(client_w, "503 Service Unavailable", "no dashboard process is running: restart the server")
        tried = frozenset()
        while j is not None:  # a process that stops in the instant of a request: the next one, as for a new browser
            if not await self._to(j, new, head, client_r, client_w):
                return
            new, tried = True, tried | {j}
            j = self.next_running(tried)
        reply(client_w, "502 Bad Gateway", "the dashboard processes do not answer: reload the page")

    async def _to(self, j: int, new: bool, head: bytes, client_r: asyncio.StreamReader,
                  client_w: asyncio.StreamWriter) -> bool:
        """Forward the request ``head`` and the rest of the connection to process ``j`` (its response with the
        cookie when ``new``). True, with the client left open and nothing of it read past the head, when ``j``
        refused the connection, or stopped before it answered a request without a body: another process may
        take it then."""
        try:
            server_r, server_w = await asyncio.open_connection("127.0.0.1", self.ports[j], limit=HEAD_MAX)
        except OSError:
            return True
        server_w.write(head)
        read = [0]  # bytes of the client read past the head (a body, a request after this one)
        up = asyncio.ensure_future(_pipe(client_r, server_w, read))  # (a body goes on while the head is awaited)
        sent = False  # whether any of the response reached the client
        try:
            while new:  # the first final response of a browser without the cookie (or with a stopped one's) gets it
                part = await server_r.readuntil(b"\r\n\r\n")
                final = not 100 <= status(part) < 200 or status(part) == 101
                client_w.write(with_cookie(part, j) if final else part)  # ("100 Continue" and the like go as they are)
                sent, new = True, not final
            if not sent and (part := await server_r.read(65536)):
                client_w.write(part)
                sent = True
            if sent:
                await asyncio.gather(up, _pipe(server_r, client_w))
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            pass
        except BaseException:  # cancelled, or closed with the event loop: end what is open, awaiting nothing
            with contextlib.suppress(RuntimeError):  # (the loop may be closed already: nothing is left to end)
                up.cancel()
                server_w.close()
            raise
        up.cancel()
        try:
            await asyncio.wait([up])  # (ended before another process's pipe reads the client)
        finally:
            server_w.close()
        if not sent and not read[0] and replayable(head) and await self.stopped(j):
            return True
        client_w.close()
        return False

    async def stopped(self, j: int, seconds: float = 1.0) -> bool:
        """Whether process ``j``, which closed a connection without answering, has stopped (its sockets close a
        moment before it is seen to exit, so it is watched for up to ``seconds``)."""
        deadline = time.monotonic() + seconds
        while self.running(j):
            if self.procs is None or time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.05)
        return True


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, read: list[int] | None = None) -> None:
    """Copy ``reader`` to ``writer`` until its end, then end ``writer``'s side of the connection (half-close); a
    broken connection closes ``writer`` (the other side then sees its end). ``read[0]`` counts the bytes taken."""
    try:
        while data := await reader.read(65536):
            if read is not None:
                read[0] += len(data)
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        writer.close()


def start(app: Path, ports: list[int], options: list[str]) -> list[subprocess.Popen]:
    """``streamlit run app`` on each of ``ports`` (this machine only, each checked free first), waited for until
    each answers; none left running if one cannot start or the start is interrupted."""
    for port in ports:
        if not port_free(port):
            raise MicroaggError(f"port {port} of this machine is in use (a dashboard process would take it); choose "
                                f"another --port.")
    procs: list[subprocess.Popen] = []
    try:
        for p in ports:
            procs.append(launch(app, p, options))
        for proc, port in zip(procs, ports):
            if not answering(port, proc):
                if proc.poll() is not None:
                    raise MicroaggError(f"the dashboard server on port {port} stopped at its start (exit code "
                                        f"{proc.returncode}); its messages are above.")
                raise MicroaggError(f"the dashboard server on port {port} did not answer within 150 s.")
    except BaseException:
        stop(procs)
        raise
    return procs


def launch(app: Path, port: int, options: list[str]) -> subprocess.Popen:
    """``streamlit run app`` on ``port`` of this machine, from the app's folder, which holds its
    .streamlit/config.toml; its banner (a private port) unseen."""
    return subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true", *options], cwd=app.parent,
                            stdout=subprocess.DEVNULL)


async def keep(balancer: Balancer, app: Path, options: list[str]) -> None:
    """Start again, on its port, every process of ``balancer`` found stopped (said once when found, and again when it
    answers): its browsers meanwhile go to the others. One that stops at its start is tried again after
    :data:`RETRY` seconds. Runs until cancelled; a process being started is stopped then."""
    tried = dict.fromkeys(range(len(balancer.ports)), -RETRY)
    while True:
        await asyncio.sleep(CHECK)
        for j, port in enumerate(balancer.ports):
            if balancer.running(j) or time.monotonic() - tried[j] < RETRY:
                continue
            tried[j] = time.monotonic()
            try:
                up, proc = await _restart(app, port, options)
            except Exception as exc:  # (the machine may refuse a process: the others serve on, tried again later)
                up, proc = False, None
                print(f"microagg dashboard: the process on port {port} could not be started: {exc}",
                      file=sys.stderr, flush=True)
            if up:
                balancer.procs[j] = proc
                balancer.told.discard(j)
                print(f"microagg dashboard: the process on port {port} was started again", file=sys.stderr,
                      flush=True)
            else:
                print(f"microagg dashboard: the process on port {port} could not start again; tried again in "
                      f"{RETRY:.0f} s", file=sys.stderr, flush=True)


async def _restart(app: Path, port: int, options: list[str]) -> tuple[bool, subprocess.Popen]:
    """A process started on ``port`` and whether it answers; one that does not is stopped (in a thread: its wait
    never holds the balancer's loop), as is one being started when the keeper is cancelled."""
    proc = launch(app, port, options)
    try:
        up = await asyncio.to_thread(answering, port, proc)
    except BaseException:
        await asyncio.shield(asyncio.to_thread(stop, [proc]))
        raise
    if not up:
        await asyncio.to_thread(stop, [proc])
    return up, proc


def port_free(port: int) -> bool:
    """Whether ``port`` of this machine can be taken now."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def answering(port: int, proc: subprocess.Popen | None = None, seconds: float = 150) -> bool:
    """Whether the server on ``port`` of this machine answers its health check within ``seconds`` (False as soon
    as ``proc``, the process that should serve it, has stopped)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1):
                return True
        except OSError:
            time.sleep(0.25)
    return False


def stop(procs: list[subprocess.Popen]) -> None:
    """Stop the processes (terminate, then kill those still running after 30 s)."""
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
    ap = Parser(prog="python -m microagg.dashboard.serve",
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


async def serve(args: argparse.Namespace, options: list[str]) -> None:
    """Start the processes and forward the public port to them until cancelled (Ctrl+C, SIGTERM)."""
    ports = [args.port + 1 + j for j in range(args.processes)]
    balancer = Balancer(ports)
    try:
        server = await asyncio.start_server(balancer.connection, args.address, args.port, limit=HEAD_MAX)
    except OSError as exc:
        raise MicroaggError(f"cannot listen on {args.address}:{args.port}: {exc.strerror}.") from None
    try:
        balancer.procs = start(args.app, ports, options)
    except BaseException:
        server.close()
        raise
    task = asyncio.current_task()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    noun = "process" if args.processes == 1 else "processes"
    print(f"microagg dashboard: {args.processes} {noun} behind http://{args.address}:{args.port}", flush=True)
    keeper = asyncio.create_task(keep(balancer, args.app, options))
    try:
        async with server:
            await server.serve_forever()
    finally:
        keeper.cancel()
        with contextlib.suppress(BaseException):  # (whatever ended it, the processes are stopped below)
            await keeper
        stop(balancer.procs)


def main(argv: list[str] | None = None) -> int:
    """``python -m microagg.dashboard.serve``: 0 once stopped, 2 with one message if it cannot start."""
    try:
        args, options = parse(sys.argv[1:] if argv is None else argv)
        signal.signal(signal.SIGTERM, _interrupt)  # during the start too: the processes started are stopped
        asyncio.run(serve(args, options))
    except MicroaggError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    return 0


def _interrupt(signum, frame):
    """SIGTERM before the balancer serves: stopped like Ctrl+C."""
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
