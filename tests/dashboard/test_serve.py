"""Several dashboard processes behind one address: a browser stays with the process that holds its session."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from microagg.base.errors import MicroaggError
from microagg.dashboard import serve

ROOT = Path(__file__).resolve().parents[2]


def test_the_cookie_names_a_process_only_when_it_is_one_of_them():
    head = b"GET / HTTP/1.1\r\nHost: x\r\nCookie: a=1; microagg-server=1; b=2\r\n\r\n"
    assert serve.chosen(head, 2) == 1
    assert serve.chosen(head, 1) is None  # a process that no longer exists: the next one in turn
    assert serve.chosen(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 2) is None
    assert serve.chosen(b"GET / HTTP/1.1\r\nCookie: microagg-server=x\r\n\r\n", 2) is None
    assert serve.chosen(b"GET / HTTP/1.1\r\nCOOKIE:microagg-server=0\r\n\r\n", 2) == 0
    assert serve.chosen(b"GET /?microagg-server=1 HTTP/1.1\r\n\r\n", 2) is None  # the request line is not a cookie
    assert serve.chosen(b"GET / HTTP/1.1\r\nCookie: microagg-server=" + b"9" * 5000 + b"\r\n\r\n", 2) is None
    assert serve.chosen(b"GET / HTTP/1.1\r\nCookie: microagg-server=01\r\n\r\n", 2) is None


def test_the_first_response_carries_the_cookie():
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
    out = serve.with_cookie(head, 3)
    assert out.startswith(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n") and out.endswith(b"\r\n\r\n")
    assert b"Set-Cookie: microagg-server=3; Path=/" in out
    assert serve.status(out) == 200 and serve.status(b"HTTP/1.1 101 Switching Protocols\r\n\r\n") == 101
    assert serve.status(b"garbage\r\n\r\n") == 0


class _Process:
    """What the balancer asks of a dashboard process: whether it has stopped."""

    def __init__(self):
        self.returncode = None

    def poll(self):
        return self.returncode


async def _upstream(mode: str, proc: _Process | None = None) -> tuple[asyncio.AbstractServer, int, list[bytes]]:
    """A stand-in dashboard process on a free port. ``mode`` "answer": every request's head gets "200" naming the
    port; "stop": it stops at the first request, without a byte of answer; "partial": it stops after the first bytes
    of its answer. ``proc`` then reports it stopped a moment after its sockets closed, as a killed process does.
    Returns the server, its port and the heads it received."""
    heads: list[bytes] = []

    async def handle(reader, writer):
        heads.append(await reader.readuntil(b"\r\n\r\n"))
        if mode == "answer":
            writer.write(f"HTTP/1.1 200 OK\r\nContent-Length: {len(str(port))}\r\n\r\n{port}".encode())
        elif mode == "partial":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Le")
        await writer.drain()
        await asyncio.sleep(0.05)  # (a request sent after this one reaches the balancer meanwhile)
        writer.close()
        if proc is not None:
            await asyncio.sleep(0.2)
            proc.returncode = -9

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, port, heads


async def _through(balancer: serve.Balancer, request: bytes) -> bytes:
    """A request sent through ``balancer`` on a port of its own; everything that came back."""
    front = await asyncio.start_server(balancer.connection, "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", front.sockets[0].getsockname()[1])
    writer.write(request)
    await writer.drain()
    try:
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
        front.close()


def test_a_request_to_a_process_that_stops_in_that_instant_goes_to_another():
    """A process that refuses the connection, or closes it without answering a request without a body because it
    has stopped: the request goes to the next process, whose response carries its cookie. Never sent twice: a
    request with a body (it may be gone), one the process began to answer, one followed by another request on the
    connection, one a running process closed."""
    async def case():
        live, live_port, live_heads = await _upstream("answer")
        with socket.socket() as s:  # a port nobody listens on: the process has gone
            s.bind(("127.0.0.1", 0))
            gone_port = s.getsockname()[1]
        get = b"GET / HTTP/1.1\r\nHost: x\r\nCookie: microagg-server=0\r\n\r\n"
        out = await _through(serve.Balancer([gone_port, live_port]), get)
        assert out.startswith(b"HTTP/1.1 200") and b"microagg-server=1" in out and out.endswith(str(live_port).encode())

        dying = _Process()
        dead, dead_port, dead_heads = await _upstream("stop", dying)
        out = await _through(serve.Balancer([dead_port, live_port], [dying, _Process()]), get)
        assert len(dead_heads) == 1 and b"microagg-server=1" in out and out.endswith(str(live_port).encode())

        before = len(live_heads)
        post = b"POST /x HTTP/1.1\r\nHost: x\r\nCookie: microagg-server=0\r\nContent-Length: 3\r\n\r\nabc"
        for mode, request, proc in [("stop", post, _Process()), ("partial", get, _Process()),
                                    ("stop", get + get, _Process()), ("stop", get, None)]:
            others = [proc or _Process(), _Process()]
            server, port, heads = await _upstream(mode, proc)
            out = await _through(serve.Balancer([port, live_port], others), request)
            assert out == (b"HTTP/1.1 200 OK\r\nContent-Le" if mode == "partial" else b"")
            assert len(heads) == 1 and len(live_heads) == before
            server.close()
        for server in (live, dead):
            server.close()

    asyncio.run(case())


DESTROYED = """
import asyncio, gc
from microagg.dashboard import serve

async def main():
    async def never(reader, writer):  # a process that takes the request and never answers
        await reader.readuntil(b"\\r\\n\\r\\n")
        await asyncio.sleep(3600)
    up = await asyncio.start_server(never, "127.0.0.1", 0)
    front = await asyncio.start_server(serve.Balancer([up.sockets[0].getsockname()[1]]).connection, "127.0.0.1", 0)
    r, w = await asyncio.open_connection("127.0.0.1", front.sockets[0].getsockname()[1])
    w.write(b"GET / HTTP/1.1\\r\\nHost: x\\r\\nCookie: microagg-server=0\\r\\n\\r\\n")
    await w.drain()
    await asyncio.sleep(0.3)

loop = asyncio.new_event_loop()
loop.run_until_complete(main())
loop.close()
gc.collect()
"""


def test_a_process_the_machine_refuses_is_said_and_the_keeper_goes_on(monkeypatch, capsys):
    """A restart the machine refuses (no memory, too many processes) is said; the keeper keeps looking, and the
    public port's shutdown still stops the processes."""
    def launch(app, port, options):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(serve, "launch", launch)
    monkeypatch.setattr(serve, "CHECK", 0.01)
    monkeypatch.setattr(serve, "RETRY", 0.05)
    dead = _Process()
    dead.returncode = -9
    balancer = serve.Balancer([9003], [dead])

    async def run():
        keeper = asyncio.create_task(serve.keep(balancer, Path("app.py"), []))
        await asyncio.sleep(0.3)
        assert not keeper.done()
        keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keeper

    asyncio.run(run())
    err = capsys.readouterr().err
    assert err.count("port 9003 could not be started: [Errno 11]") >= 2 and "Traceback" not in err


@pytest.mark.parametrize("starts", [True, False])
def test_a_stopped_process_is_started_again_on_its_port(monkeypatch, capsys, starts):
    """``keep`` starts a stopped process again on its port and hands it its browsers; one that cannot start is
    stopped, said, and not tried again before ``RETRY``."""
    launched, stopped = [], []

    def launch(app, port, options):
        launched.append(port)
        return _Process()

    monkeypatch.setattr(serve, "launch", launch)
    monkeypatch.setattr(serve, "answering", lambda port, proc=None, seconds=150: starts)
    monkeypatch.setattr(serve, "stop", lambda procs: stopped.extend(procs))
    monkeypatch.setattr(serve, "CHECK", 0.01)
    alive, dead = _Process(), _Process()
    dead.returncode = -9
    balancer = serve.Balancer([9001, 9002], [alive, dead])

    async def run():
        keeper = asyncio.create_task(serve.keep(balancer, Path("app.py"), []))
        await asyncio.sleep(0.3)
        keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keeper

    asyncio.run(run())
    err = capsys.readouterr().err
    assert launched == [9002] and balancer.procs[0] is alive  # once: started, or waiting for RETRY
    if starts:
        assert balancer.procs[1] is not dead and balancer.running(1) and not stopped
        assert "port 9002 stopped" in err and "port 9002 was started again" in err
    else:
        assert balancer.procs[1] is dead and len(stopped) == 1 and "could not start again; tried again in 60 s" in err


def test_a_connection_ended_with_the_event_loop_leaves_no_traceback():
    """A forwarded connection whose task is destroyed with the event loop, never cancelled (as a server stopping
    with a request in flight can leave it): its cleanup awaits nothing and needs no loop, so nothing is printed
    but asyncio's own note."""
    done = subprocess.run([sys.executable, "-c", DESTROYED], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0 and "Traceback" not in done.stderr and "GeneratorExit" not in done.stderr, done.stderr


@pytest.mark.parametrize("argv, message", [(["--processes", "0"], "--processes must be at least 1"),
                                           (["--port", "65535", "--processes", "2"], "--port must leave room"),
                                           (["--app", "no/such/app.py"], "no dashboard entry file")])
def test_bad_options_are_one_message(argv, message, capsys):
    with pytest.raises(MicroaggError, match=message):
        serve.parse(argv)
    assert serve.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_options_after_the_separator_go_to_every_process():
    args, options = serve.parse(["--processes", "3", "--", "--server.maxUploadSize", "50"])
    assert args.processes == 3 and options == ["--server.maxUploadSize", "50"]


def _free_ports(count: int) -> int:
    """A port with the ``count`` - 1 next ones free too."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + count < 65536 and all(serve.port_free(port + j) for j in range(count)):
            return port
    pytest.skip("no run of free ports")


async def _run_page(port: int, cookie: str | None) -> list[str]:
    """One page run through the public port, as a browser tab's websocket makes it; the kinds of elements drawn."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    headers = {"Cookie": cookie} if cookie else {}
    async with websockets.connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],
                                  additional_headers=headers, max_size=None) as ws:
        msg = BackMsg()
        msg.rerun_script.query_string = ""
        await ws.send(msg.SerializeToString())
        kinds = []
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(await asyncio.wait_for(ws.recv(), 120))
            if fwd.WhichOneof("type") == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                kinds.append(fwd.delta.new_element.WhichOneof("type"))
            if fwd.WhichOneof("type") == "script_finished":
                return kinds


def test_two_processes_behind_one_port_serve_whole_pages_and_keep_each_browser_on_its_own(tmp_path):
    port = _free_ports(3)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    log = tmp_path / "serve.log"  # a file, never a pipe read only at the end (the processes would block on it)
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "microagg.dashboard.serve", "--processes", "2", "--port",
                                 str(port)], cwd=ROOT, env=env, stdout=out, stderr=out, text=True)
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "the public port did not answer"
                time.sleep(0.5)
        cookies = []
        for _ in range(3):  # browsers without the cookie: the processes in turn
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as page:
                assert page.status == 200 and b"<html" in page.read().lower()
                cookies.append(page.headers["Set-Cookie"].split(";")[0])
        assert cookies[0] != cookies[1] and cookies[0] == cookies[2]
        assert sorted(cookies[:2]) == ["microagg-server=0", "microagg-server=1"]
        request = urllib.request.Request(f"http://127.0.0.1:{port}/", headers={"Cookie": "microagg-server=1"})
        with urllib.request.urlopen(request) as page:  # a browser with it keeps its process
            assert page.headers["Set-Cookie"] is None or "microagg-server" not in page.headers["Set-Cookie"]
        for cookie in ("microagg-server=0", "microagg-server=1", None):  # a whole page on each process
            kinds = asyncio.run(_run_page(port, cookie))
            assert "metric" in kinds and "exception" not in kinds
        # a request with a body from a browser without the cookie is answered (its body forwarded at once)
        upload = urllib.request.Request(f"http://127.0.0.1:{port}/_stcore/upload_file/nosession/nofile",
                                        data=b"x" * 1000, method="PUT")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(upload, timeout=30)
        assert 400 <= refused.value.code < 500
        # a process that stops: its browsers are sent to the other one, with the other's cookie, and it is said
        children = [int(c) for c in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
        assert len(children) == 2
        os.kill(children[1], signal.SIGKILL)
        deadline = time.monotonic() + 60
        while not _moved(port):  # (until the killed process has died it may still answer)
            assert time.monotonic() < deadline, "the browsers of the stopped process were not sent to the other"
            time.sleep(0.1)
        for _ in range(3):
            assert _moved(port)
        # ... and is started again on its port, which then serves its browsers again
        deadline = time.monotonic() + 180
        while "was started again" not in log.read_text():
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
            time.sleep(0.5)
        assert not _moved(port)
        children = [int(c) for c in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
        assert len(children) == 2
    finally:  # the processes are the public port's own: stopping it stops them
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    err = log.read_text()
    assert proc.returncode == 0 and "stopped (exit code" in err and "Traceback" not in err
    deadline = time.monotonic() + 30
    while not all(_dead(c) for c in children):
        assert time.monotonic() < deadline, "a dashboard process outlived the public port"
        time.sleep(0.1)


def _moved(port: int) -> bool:
    """Whether a browser of process 1 is now answered by process 0, with its cookie."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/", headers={"Cookie": "microagg-server=1"})
    try:
        with urllib.request.urlopen(request, timeout=30) as page:
            return page.status == 200 and (page.headers["Set-Cookie"] or "").startswith("microagg-server=0")
    except (OSError, http.client.HTTPException):  # the dying process's connection, closed or refused
        return False


def _dead(pid: int) -> bool:
    """Whether process ``pid`` has stopped (gone, or a zombie waiting for its parent)."""
    try:
        return "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
    except FileNotFoundError:
        return True


def test_the_servers_config_leaves_out_the_full_collection_after_every_run():
    """Streamlit's default collects all of the interpreter's garbage after every run of the page, holding it:
    with a class on one server that was most of the server's time; the project's config turns it off."""
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False
    assert config["server"]["fileWatcherType"] == "none"


def test_a_process_that_cannot_start_is_one_message_and_leaves_nothing_running():
    port = _free_ports(1)
    with pytest.raises(MicroaggError, match=f"on port {port} stopped at its start"):
        serve.start(ROOT / "app.py", [port], ["--no-such-option"])
    assert serve.port_free(port)
