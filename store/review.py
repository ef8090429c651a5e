"""``memvet review``: a local web page where people confirm pending and conflicting memories.

Web stack: Starlette (routing, requests, responses) served by uvicorn --
a small, well-kept ASGI pair with few dependencies, the same stack as
``memvet serve``; both are the optional extra ``memvet[review]``. The page
itself is one static document (:mod:`memvet.store.review_page`) with no
framework and no third-party asset: it asks ``/api/items`` for JSON and
builds the DOM with ``textContent``, so memory text is never parsed as HTML.

Every action goes through the :class:`~memvet.store.Store` API
(``confirm``, ``invalidate``, ``restore``), so it lands in the event log
with who did it (the reviewer name on the page) and when.

Security:

- binds 127.0.0.1 unless told otherwise;
- a per-run random token, required in the ``X-Memvet-Token`` header of every
  state-changing request (with a JSON body: a cross-site form cannot send
  either), compared in constant time;
- the ``Host`` header must name the address served (no DNS rebinding);
- a strict Content-Security-Policy: only the page's own script, with a
  per-run nonce; no inline handlers, no remote anything, no framing.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from typing import Any, Iterable

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from memvet.routing import KINDS

from .errors import StoreError
from .review_page import render_page

#: What the page lists by default: what waits for a person. ``invalid`` can be shown to restore.
REVIEW_STATUSES = ("pending", "conflict", "invalid")
ACTIONS = ("approve", "invalidate", "choose", "restore")
_MAX_IDS = 1000
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


class ReviewService:
    """What the page does, without the web: list with filters, act on ids. Thread-safe (one lock)."""

    def __init__(self, store: Any):
        self.store = store
        self._lock = threading.Lock()

    def items(self, *, kind: str | None = None, namespace: str | None = None, status: str | None = None,
              code: str | None = None) -> dict[str, Any]:
        statuses = (status,) if status else ("pending", "conflict")
        if status and status not in REVIEW_STATUSES:
            raise StoreError(f"status {status!r} is none of {', '.join(REVIEW_STATUSES)}", field="status")
        if kind and kind not in KINDS:
            raise StoreError(f"kind {kind!r} is none of {', '.join(KINDS)}", field="kind")
        with self._lock:
            everything = self.store.review(statuses=REVIEW_STATUSES)
            listed = [m for m in everything if m["status"] in statuses]
            evidence = self.store.evidence([m["id"] for m in everything])
            rivals_wanted = {x for m in listed for x in m["conflicts_with"]}
            rivals = {x: self.store.get(x) for x in rivals_wanted}
            history = {m["id"]: self.store.events(m["id"]) for m in listed}
        facets = {"kinds": sorted({m["kind"] for m in everything}),
                  "namespaces": sorted({m["namespace"] or "" for m in everything}),
                  "codes": sorted({c for e in evidence.values() for c in e.get("codes", [])}),
                  "statuses": list(REVIEW_STATUSES)}
        out = []
        for m in listed:
            ev = evidence.get(m["id"], {})
            if kind and m["kind"] != kind:
                continue
            if namespace is not None and namespace != "" and (m["namespace"] or "") != namespace:
                continue
            if code and code not in ev.get("codes", []):
                continue
            out.append({**m, "codes": ev.get("codes", []), "evidence": ev.get("messages", []),
                        "conflicts": [rivals[x] for x in m["conflicts_with"] if rivals.get(x)],
                        "history": [{"at": e["at"], "event": e["event"], "actor": e["actor"]}
                                    for e in history[m["id"]]]})
        counts = {s: sum(m["status"] == s for m in everything) for s in REVIEW_STATUSES}
        return {"items": out, "facets": facets, "counts": counts}

    def act(self, action: str, ids: Iterable[str], *, by: str, reason: str | None = None) -> dict[str, Any]:
        """Apply ``action`` to each id in turn (each its own transaction); per-id results, never all-or-nothing."""
        if action not in ACTIONS:
            raise StoreError(f"action {action!r} is none of {', '.join(ACTIONS)}", field="action")
        ids = [str(i) for i in ids]
        if not ids or len(ids) > _MAX_IDS:
            raise StoreError(f"give between 1 and {_MAX_IDS} ids", field="ids")
        by = (by or "").strip()
        if not by:
            raise StoreError("say who you are (the reviewer name) before acting", field="by")
        done, failed = [], []
        for mid in ids:
            try:
                with self._lock:
                    if action in ("approve", "choose"):
                        # "choose" keeps this value of a conflict: confirm() invalidates its rivals.
                        m = self.store.confirm(mid, by=by)
                    elif action == "invalidate":
                        m = self.store.invalidate(mid, reason=(reason or "").strip() or f"rejected on review by {by}",
                                                  by=by)
                    else:
                        m = self.store.restore(mid, by=by)
                done.append({"id": mid, "status": m["status"]})
            except StoreError as exc:
                failed.append({"id": mid, "error": exc.detail})
        return {"done": done, "failed": failed}


def create_app(store: Any, *, token: str | None = None, reviewer: str = "", allowed_hosts: Iterable[str] = LOOPBACK_HOSTS
               ) -> Starlette:
    """The ASGI app of the review page over ``store``. ``app.state.token`` is the per-run token."""
    service = ReviewService(store)
    token = token or secrets.token_urlsafe(32)

    def page(request: Request) -> Response:
        nonce = secrets.token_urlsafe(16)
        html = render_page(token=token, nonce=nonce, reviewer=reviewer, store=store.path)
        return HTMLResponse(html, headers={**_HEADERS, "Content-Security-Policy": _csp(nonce),
                                           "Cache-Control": "no-store"})

    def items(request: Request) -> Response:
        q = request.query_params
        try:
            data = service.items(kind=q.get("kind") or None, namespace=q.get("namespace"),
                                 status=q.get("status") or None, code=q.get("code") or None)
        except StoreError as exc:
            return _error(400, exc.detail)
        return JSONResponse(data, headers=_HEADERS)

    async def act(request: Request) -> Response:
        sent = request.headers.get("x-memvet-token", "")
        if not hmac.compare_digest(sent.encode(), token.encode()):
            return _error(403, "missing or wrong X-Memvet-Token (reload the page)")
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return _error(415, "send JSON")
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "the body is not JSON")
        if not isinstance(body, dict) or not isinstance(body.get("ids"), list):
            return _error(400, 'send {"action", "ids": [...], "by", "reason"}')
        try:
            result = service.act(str(body.get("action")), body["ids"], by=str(body.get("by") or ""),
                                 reason=body.get("reason") if isinstance(body.get("reason"), str) else None)
        except StoreError as exc:
            return _error(400, exc.detail)
        return JSONResponse(result, headers=_HEADERS)

    app = Starlette(routes=[Route("/", page), Route("/api/items", items), Route("/api/act", act, methods=["POST"])],
                    middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))])
    app.state.token = token
    app.state.service = service
    return app


_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}


def _csp(nonce: str) -> str:
    return (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
            "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def _error(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status, headers=_HEADERS)



def make_server(store: Any, *, host: str = "127.0.0.1", port: int = 8737, reviewer: str = "") -> Any:
    """A uvicorn server for the page over ``store`` (``server.config.app.state.token`` is its token).

    Run it with ``server.run()`` (or ``server.run(sockets=[sock])`` with a
    socket bound beforehand); stop it with ``server.should_exit = True``.
    """
    import uvicorn  # the optional extra memvet[review]

    hosts = [*LOOPBACK_HOSTS] if host in LOOPBACK_HOSTS else [*LOOPBACK_HOSTS, host]
    app = create_app(store, reviewer=reviewer, allowed_hosts=hosts)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    server.app = app
    return server
