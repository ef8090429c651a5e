"""``memvet serve``: the HTTP JSON API (see :mod:`memvet.serve`).

::

    memvet serve                                   # 127.0.0.1:8757, one worker per CPU
    MEMVET_SERVE_TOKEN=... memvet serve --port 9000 --workers 2 --store .memvet/memory.db
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from typing import Any, Callable

from .errors import MemvetError

DEFAULT_PORT = 8757


def register(sub: Any) -> dict[str, Callable[[argparse.Namespace], int]]:
    p = sub.add_parser("serve", help="serve POST /v1/validate, /v1/commit, GET /v1/recall over HTTP",
                       description="An HTTP JSON API: the same report as `memvet check --format json`.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT)
    p.add_argument("--workers", type=int, default=0, help="validation processes (default: one per CPU)")
    p.add_argument("--max-bytes", type=int, default=4 * 1024 * 1024, help="request body limit (default: 4 MiB)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds one validation may take (default: 30)")
    p.add_argument("--token-file", help="require `Authorization: Bearer <token>`; the token is read from this "
                                        "file (or from MEMVET_SERVE_TOKEN)")
    p.add_argument("--store", help="the store for /v1/commit and /v1/recall (default: [tool.memvet.store] path)")
    p.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")
    return {"serve": run_serve}


def _token(args: argparse.Namespace) -> str | None:
    if args.token_file:
        try:
            token = open(args.token_file, encoding="utf-8").read().strip()
        except OSError as exc:
            raise MemvetError(f"cannot read: {exc.strerror or exc}", file=args.token_file,
                              field="--token-file") from None
        if not token:
            raise MemvetError("the token file is empty", file=args.token_file, field="--token-file")
        return token
    return os.environ.get("MEMVET_SERVE_TOKEN") or None


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run_serve(args: argparse.Namespace) -> int:
    from .cli import load_config

    try:
        import uvicorn

        from .serve import Settings, create_app
    except ImportError as exc:
        raise MemvetError(f"memvet serve needs the serve extra: pip install 'memvet[serve]' ({exc.name} is missing)",
                          field="serve") from None
    for name in ("workers", "max_bytes"):
        if getattr(args, name) < 0 or (name == "max_bytes" and args.max_bytes == 0):
            raise MemvetError("must be a positive number", field="--" + name.replace("_", "-"))
    if args.timeout <= 0:
        raise MemvetError("must be a positive number of seconds", field="--timeout")
    token = _token(args)
    if not _loopback(args.host) and token is None:
        print(f"memvet serve: warning: listening on {args.host} without a bearer token", file=sys.stderr)
    settings = Settings(config=load_config(args), workers=args.workers, max_bytes=args.max_bytes,
                        timeout=args.timeout, token=token, store=args.store)
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning", access_log=False)
    return 0
