"""A student's page without a browser: Streamlit's own client protocol over its websocket (``/_stcore/stream``).

A browser tab of the dashboard is, to the server, one websocket: it sends a ``BackMsg`` asking for a run with the
values of its widgets, and reads the ``ForwardMsg``s of that run (the page's elements, then ``script_finished``).
:class:`Page` does the same from Python, so that a class of thirty can be driven from the machine the server runs
on without thirty browsers taking its cores: what is measured is the server. It sends only the widgets it changes,
by their keys (the server keeps the others' values, as it keeps those of a tab that sent them before), and asks for
no cached messages, so the server sends every element in full (a browser that cached some would be sent less).
"""

from __future__ import annotations

import asyncio
import time

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

FINISHED = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")
ERROR = 1  # Alert.Format.ERROR: an st.error on the page


def widget_key(widget_id: str) -> str:
    """The ``key=`` a widget was given, from its id (``$$ID-<hash>-<key>``); "" for a widget without one."""
    parts = widget_id.split("-", 2)
    return parts[2] if widget_id.startswith("$$ID-") and len(parts) == 3 else ""


class Page:
    """One session of the dashboard at ``url`` (``http://host:port``), run by run."""

    def __init__(self, url: str):
        self.url = url.replace("http", "ws", 1).rstrip("/") + "/_stcore/stream"
        self.ids: dict[str, str] = {}  # widget key -> widget id, as the server's elements give them
        self.script_hash = ""
        self.ws = None
        self.errors: list[str] = []  # exceptions and st.error texts of the last run

    async def open(self, timeout: float) -> float:
        """Connect and run the page as a browser does on opening it; seconds until the run ended."""
        t0 = time.perf_counter()
        self.ws = await websockets.connect(self.url, subprotocols=["streamlit"], max_size=None, open_timeout=timeout,
                                           ping_interval=None)
        await self._rerun({}, timeout)
        return time.perf_counter() - t0

    async def change(self, key: str, value, timeout: float) -> float:
        """Set the widget of ``key`` to ``value`` (int, float, bool or str) and run; seconds until the run ended."""
        if key not in self.ids:
            raise KeyError(f"no widget with key {key!r} on the page (keys: {sorted(self.ids)})")
        t0 = time.perf_counter()
        await self._rerun({key: value}, timeout)
        return time.perf_counter() - t0

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def _rerun(self, values: dict, timeout: float) -> None:
        msg = BackMsg()
        state = msg.rerun_script
        state.page_script_hash = self.script_hash
        for key, value in values.items():
            w = state.widget_states.widgets.add()
            w.id = self.ids[key]
            _set(w, value)
        await self.ws.send(msg.SerializeToString())
        self.errors = []
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no end of the run within {timeout:.0f} s")
            fwd = ForwardMsg()
            fwd.ParseFromString(await _recv(self.ws, left))
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.script_hash = fwd.new_session.page_script_hash or fwd.new_session.main_script_hash
            elif kind == "delta":
                self._read(fwd.delta)
            elif kind == "script_finished" and fwd.script_finished == FINISHED:
                return

    def _read(self, delta) -> None:
        """Note the widget ids and the errors of one element or block."""
        which = delta.WhichOneof("type")
        if which == "new_element":
            el = delta.new_element
            sub = getattr(el, el.WhichOneof("type") or "", None)
            if el.WhichOneof("type") == "exception":
                self.errors.append(f"exception: {sub.type}: {sub.message}"[:200])
            elif el.WhichOneof("type") == "alert" and sub.format == ERROR:
                self.errors.append(f"error: {sub.body}"[:200])
            self._note(getattr(sub, "id", ""))
        elif which == "add_block":
            block = delta.add_block
            self._note(block.id)
            inner = block.WhichOneof("type")
            if inner:
                self._note(getattr(getattr(block, inner), "id", ""))

    def _note(self, widget_id: str) -> None:
        key = widget_key(widget_id)
        if key:
            self.ids[key] = widget_id


def _set(w: WidgetState, value) -> None:
    if isinstance(value, bool):
        w.bool_value = value
    elif isinstance(value, int):
        w.int_value = value
    elif isinstance(value, float):
        w.double_value = value
    else:
        w.string_value = str(value)


async def _recv(ws, timeout: float) -> bytes:
    data = await asyncio.wait_for(ws.recv(), timeout)
    if isinstance(data, str):
        raise RuntimeError(f"unexpected text frame from the server: {data[:80]!r}")
    return data
