"""``memvet serve``: memvet's report over HTTP, for pipelines in any language.

Endpoints (the OpenAPI document is ``GET /openapi.json``):

- ``POST /v1/validate`` ``{"output": ..., "context": {...}, "config"?: {...}}``
  -> the report, byte for byte what ``memvet check --format json`` prints
  (the same formatter, the same trailing newline);
- ``POST /v1/commit`` ``{"output", "context", "stream"?, "cursor"?}``:
  validate with the store attached (W007 sees stored facts), then commit
  the records and the stream's cursor in one transaction;
- ``GET /v1/recall?query=&kind=&task_id=&scope=&limit=``: the store's recall;
- ``GET /healthz``.

Validation runs in a pool of worker processes (one engine each, built once
per config); the store lives in one thread of the server process, because a
SQLite connection belongs to the thread that opened it. Limits: a request
body over ``max_bytes`` is refused (413) before it is read in full; a
validation that takes longer than ``timeout`` seconds answers 504. With a
``token`` every ``/v1/`` request needs ``Authorization: Bearer <token>``.
Caller errors answer 4xx with ``{"error": ...}``: the message ``memvet
check`` prints after ``memvet: error:`` for the same input.

Starlette and uvicorn come with the ``serve`` extra (``pip install 'memvet[serve]'``).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .config import Config, config_from_dict
from .error_text import scrubbed
from .errors import ContextError, MemvetError

JSON_TYPE = "application/json"
DEFAULT_MAX_BYTES = 4 * 1024 * 1024


@dataclass
class Settings:
    config: Config = field(default_factory=Config)
    workers: int = 0                    # 0: one per CPU
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout: float = 30.0
    token: str | None = None
    store: str | None = None            # path or URL for /v1/commit and /v1/recall (default: config's)

    @property
    def pool_size(self) -> int:
        return self.workers or os.cpu_count() or 1


class HTTPError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


# --- the work, in a worker process --------------------------------------------------

_ENGINES: dict[str, Any] = {}
_BASE: dict[str, Config] = {}


def _init_worker(config: Config) -> None:
    _BASE["config"] = config


def _engine(config_key: str | None) -> Any:
    from .engine import Engine

    key = config_key or ""
    engine = _ENGINES.get(key)
    if engine is None:
        config = _BASE.get("config") or Config()
        if config_key:
            config = config_from_dict(json.loads(config_key), source="request", prefix="config")
        if len(_ENGINES) >= 16:  # a bounded cache: clients rarely send many different configs
            _ENGINES.clear()
        engine = _ENGINES[key] = Engine(config)
    return engine


def _context(value: Any) -> Any:
    """The request's context as a Batch; a string is JSON text, never a path on the server."""
    from .context import load_context

    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ContextError(f"context is not valid JSON: {exc}", file="context") from None
    return load_context(value, source="context")


def parse_body(raw: bytes) -> dict[str, Any]:
    """The request body as ``{"output", "context", ...}``; HTTPError(400) naming what is wrong."""
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise HTTPError(400, f"the request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise HTTPError(400, 'the request body must be an object with "output" and "context"')
    for key in ("output", "context"):
        if key not in body:
            raise HTTPError(400, f'the request body has no "{key}"')
    return body


def config_key(body: dict[str, Any]) -> str | None:
    """The request's config as a canonical cache key (None: the server's config)."""
    config = body.get("config")
    if config is None:
        return None
    if not isinstance(config, dict):
        raise HTTPError(400, "config: the memvet table must be a table (a JSON object)")
    return json.dumps(config, sort_keys=True, ensure_ascii=False)


def _error_body(message: str) -> str:
    return json.dumps({"error": message}, ensure_ascii=False)


def validate_job(raw: bytes) -> tuple[int, str]:
    """``(status, body)`` for one raw request body: 200 and the json report, or 400 and the CLI's message.

    Runs in a worker process: the server's event loop never parses a body.
    """
    from .registry import default_registry

    try:
        body = parse_body(raw)
        engine = _engine(config_key(body))
        report = engine.validate(body["output"], _context(body["context"]))
    except HTTPError as exc:
        return exc.status, _error_body(scrubbed(exc.message))
    except MemvetError as exc:
        return 400, _error_body(scrubbed(exc))  # a key of the request's config/context may be a token
    # The formatter `memvet check --format json` uses, and print()'s newline.
    return 200, default_registry().formats["json"](report, source="<request>", color=False) + "\n"


def _warm() -> int:
    _engine(None)
    return os.getpid()


# --- the app ---------------------------------------------------------------------------

def create_app(settings: Settings | None = None) -> Any:
    from contextlib import asynccontextmanager

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    settings = settings or Settings()
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: Any):
        # spawn: the workers never inherit the server's threads or sockets.
        pool = ProcessPoolExecutor(settings.pool_size, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_init_worker, initargs=(settings.config,))
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(pool, _warm) for _ in range(settings.pool_size)))
        state["pool"] = pool
        state["store_thread"] = ThreadPoolExecutor(1, thread_name_prefix="memvet-store")
        try:
            yield
        finally:
            store = state.pop("store", None)
            if store is not None:
                await loop.run_in_executor(state["store_thread"], store.close)
            state["store_thread"].shutdown(wait=True)
            pool.shutdown(wait=True, cancel_futures=True)

    def error(status: int, message: str) -> Response:
        return JSONResponse({"error": message}, status_code=status)

    def authorise(request: Request) -> None:
        if settings.token is None:
            return
        given = request.headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), settings.token.encode()):
            raise HTTPError(401, "missing or wrong bearer token (Authorization: Bearer <token>)")

    async def raw_body(request: Request) -> bytes:
        if request.headers.get("content-type", JSON_TYPE).split(";")[0].strip() != JSON_TYPE:
            raise HTTPError(415, f"the request body must be {JSON_TYPE}")
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > settings.max_bytes:
            raise HTTPError(413, f"the request body is over the limit of {settings.max_bytes} bytes")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > settings.max_bytes:
                raise HTTPError(413, f"the request body is over the limit of {settings.max_bytes} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    async def run_validate(raw: bytes) -> tuple[int, str]:
        loop = asyncio.get_running_loop()
        late = HTTPError(504, f"validation took longer than {settings.timeout:g} s")
        start = loop.time()
        job = loop.run_in_executor(state["pool"], validate_job, raw)
        try:
            result = await asyncio.wait_for(job, settings.timeout)
        except asyncio.TimeoutError:
            raise late from None
        # A result that arrives in the same loop turn as the deadline is still late.
        if loop.time() - start > settings.timeout:
            raise late
        return result

    def handler(fn: Any) -> Any:
        async def wrapped(request: Request) -> Response:
            try:
                if request.url.path.startswith("/v1/"):
                    authorise(request)
                return await fn(request)
            except HTTPError as exc:
                return error(exc.status, exc.message)
        return wrapped

    async def validate(request: Request) -> Response:
        status, text = await run_validate(await raw_body(request))
        return Response(text, status_code=status, media_type=JSON_TYPE)

    def store() -> Any:  # runs in the store thread only
        if "store" not in state:
            from .store import open_store

            state["store"] = open_store(settings.store, config=settings.config)
        return state["store"]

    async def in_store_thread(fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(state["store_thread"], fn, *args)

    commit_engines: dict[str, Any] = {}

    def commit_engine(key: str | None) -> Any:  # the store thread's engines, one per config
        from .engine import Engine

        engine = commit_engines.get(key or "")
        if engine is None:
            config = config_from_dict(json.loads(key), source="request", prefix="config") if key else settings.config
            if len(commit_engines) >= 16:
                commit_engines.clear()
            engine = commit_engines[key or ""] = Engine(config)
        return engine

    def commit_job(raw: bytes) -> tuple[int, dict[str, Any]]:
        from .store import RejectedReportError, batch_key

        try:
            body = parse_body(raw)
        except HTTPError as exc:
            return exc.status, {"error": exc.message}
        stream, cursor = body.get("stream", "http"), body.get("cursor")
        if not isinstance(stream, str) or not stream:
            return 400, {"error": "stream: must be a non-empty string"}
        if cursor is not None and (not isinstance(cursor, int) or isinstance(cursor, bool) or cursor < 0):
            return 400, {"error": "cursor: must be a non-negative integer"}
        try:
            engine = commit_engine(config_key(body))
            batch = _context(body["context"])
            st = store()
            report = engine.validate(body["output"], batch, store=st)
            report_dict = report.to_dict()
            if not report.ok:
                return 422, {"error": str(RejectedReportError(
                    "the report has rejects: ask the batch again, do not store it")), "report": report_dict}
            res = st.commit(report, stream=stream, cursor=cursor, batch_id=None if cursor is not None
                            else batch_key(batch))
        except MemvetError as exc:
            return 400, {"error": str(exc)}
        except HTTPError as exc:
            return exc.status, {"error": exc.message}
        return 200, {"committed": res.committed, "records": res.records, "scene_ids": res.scene_ids,
                     "memory_ids": res.memory_ids, "report": report_dict}

    async def commit(request: Request) -> Response:
        raw = await raw_body(request)
        status, payload = await in_store_thread(commit_job, raw)
        return JSONResponse(payload, status_code=status)

    def recall_job(params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        try:
            limit = int(params.get("limit", "5"))
        except ValueError:
            return 400, {"error": "limit: not a number"}
        if not 1 <= limit <= 100:
            return 400, {"error": "limit: must be 1 to 100"}
        try:
            found = store().recall(kind=params.get("kind") or None, scope=params.get("scope") or None,
                                   task_id=params.get("task_id") or None, query=params.get("query") or None,
                                   limit=limit)
        except MemvetError as exc:
            return 400, {"error": str(exc)}
        return 200, {"memories": found}

    async def recall(request: Request) -> Response:
        status, payload = await in_store_thread(recall_job, dict(request.query_params))
        return JSONResponse(payload, status_code=status)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True, "workers": settings.pool_size})

    async def openapi(request: Request) -> Response:
        from .serve_openapi import openapi_document

        return JSONResponse(openapi_document(token=settings.token is not None))

    routes = [Route("/v1/validate", handler(validate), methods=["POST"]),
              Route("/v1/commit", handler(commit), methods=["POST"]),
              Route("/v1/recall", handler(recall), methods=["GET"]),
              Route("/healthz", handler(healthz), methods=["GET"]),
              Route("/openapi.json", handler(openapi), methods=["GET"])]
    return Starlette(routes=routes, lifespan=lifespan)
