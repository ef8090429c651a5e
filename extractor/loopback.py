"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests and ``memvet demo``.

It speaks just enough of ``POST /v1/chat/completions`` for the real
``openai`` client: each request takes the next scripted :class:`Reply`
(the first unused one whose ``match`` text occurs in the request, so
concurrent sessions get their own answers), and every request body is kept
in :attr:`LoopbackServer.requests` for assertions.

>>> with LoopbackServer([Reply("[]")]) as server:          # doctest: +SKIP
...     client = openai.OpenAI(base_url=server.url, api_key="x")
...     client.chat.completions.create(model="m", messages=[...])

A reply can also be an HTTP error (``status=429``, ``headers``), a slow
answer (``delay`` seconds, for timeouts), a cut-off answer
(``finish_reason="length"``) or a raw body that is not JSON at all.
``refuse_formats`` makes the server answer 400 to the listed
``response_format`` types, like a server without structured outputs.
Only the standard library is used; nothing leaves the machine.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable


@dataclass
class Reply:
    """One scripted answer of the loopback server."""

    content: str | None = None
    #: Use this reply only for a request whose message texts contain this text
    #: (or every one of these texts).
    match: str | list[str] | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    #: Seconds to wait before answering (longer than the client timeout = "never answers").
    delay: float = 0.0
    finish_reason: str = "stop"
    usage: dict[str, int] | None = None
    #: Send this body verbatim instead of a chat completion (error payloads, garbage).
    body: str | None = None
    #: False: the completion carries no ``usage`` (some local servers omit it).
    send_usage: bool = True


def request_text(body: dict[str, Any]) -> str:
    """The message texts of a chat request, joined (what ``Reply.match`` looks in)."""
    messages = body.get("messages") if isinstance(body.get("messages"), list) else []
    return "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))


def _usage_for(request: dict[str, Any], content: str) -> dict[str, int]:
    """A deterministic stand-in for token counting: UTF-8 bytes / 3."""
    prompt = sum(len(str(m.get("content", "")).encode()) for m in request.get("messages", [])) // 3 + 1
    completion = len(content.encode()) // 3 + 1
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class LoopbackServer:
    """A threaded HTTP server answering chat completions from a script.

    ``replies``: a list of :class:`Reply` (consumed in order, honouring
    ``match``), or a callable ``(request_body) -> Reply`` for full control.
    Start with :meth:`start` or a ``with`` block; :attr:`url` is the
    ``base_url`` to give the client (it ends in ``/v1``).
    """

    def __init__(self, replies: Iterable[Reply] | Callable[[dict[str, Any]], Reply], *, model: str = "loopback",
                 render: Callable[[str, dict[str, Any]], str] | None = None,
                 refuse_formats: Iterable[str] = ()):
        self._responder = replies if callable(replies) else None
        #: ``render(content, request_body)`` may rewrite a scripted answer before it is sent.
        self._render = render
        #: ``response_format`` types answered with HTTP 400, like a server without structured outputs.
        self.refuse_formats = frozenset(refuse_formats)
        self._queue: list[Reply] = [] if callable(replies) else list(replies)
        self.model = model
        self.requests: list[dict[str, Any]] = []
        #: The most requests that were being answered at the same moment (concurrency checks).
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -----------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "LoopbackServer":
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                server._answer(self, body)

            def do_GET(self) -> None:  # noqa: N802 -- /v1/models, for completeness
                payload = {"object": "list", "data": [{"id": server.model, "object": "model"}]}
                server._send(self, 200, json.dumps(payload), {})

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        # A short poll interval: shutdown() waits for the next poll, and tests start many servers.
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="memvet-loopback", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()  # wakes every handler sleeping on a delay
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "LoopbackServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- script --------------------------------------------------------------
    @property
    def pending(self) -> list[Reply]:
        """Replies not used yet."""
        with self._lock:
            return list(self._queue)

    def _next_reply(self, body: dict[str, Any]) -> Reply | None:
        fmt = (body.get("response_format") or {}).get("type")
        if fmt in self.refuse_formats:
            return Reply(status=400, body=json.dumps({"error": {
                "message": f"response_format type {fmt!r} is not supported by this server",
                "type": "invalid_request_error", "param": "response_format"}}))
        if self._responder is not None:
            return self._responder(body)
        text = request_text(body)
        with self._lock:
            for k, reply in enumerate(self._queue):
                wanted = [reply.match] if isinstance(reply.match, str) else reply.match or []
                if all(w in text for w in wanted):
                    return self._queue.pop(k)
        return None

    def _answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(body)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            self._reply(handler, body)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _reply(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        reply = self._next_reply(body)
        if reply is None:
            error = {"error": {"message": "loopback script exhausted: no reply left for this request",
                               "type": "server_error"}}
            self._send(handler, 500, json.dumps(error), {"x-should-retry": "false"})
            return
        if reply.delay and self._closing.wait(reply.delay):
            return  # server closing: drop the connection silently
        if reply.body is not None:
            self._send(handler, reply.status, reply.body, reply.headers)
            return
        if reply.status != 200:
            error = {"error": {"message": f"scripted status {reply.status}", "type": "scripted"}}
            self._send(handler, reply.status, json.dumps(error), reply.headers)
            return
        content = reply.content or ""
        if self._render is not None:
            content = self._render(content, body)
        payload = {
            "id": f"chatcmpl-loopback-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                         "message": {"role": "assistant", "content": content}}],
        }
        if reply.send_usage:
            payload["usage"] = reply.usage or _usage_for(body, content)
        self._send(handler, 200, json.dumps(payload, ensure_ascii=False), reply.headers)

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, text: str, headers: dict[str, str]) -> None:
        data = text.encode("utf-8")
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                handler.send_header(key, value)
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout): nothing to answer
