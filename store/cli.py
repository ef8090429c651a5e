"""``memvet store ...`` (seed 004's maintenance checklist) and ``memvet check --commit``.

::

    memvet store recall "默认超时" [--kind project_fact] [--task sc0003]
    memvet store review                          # pending and conflicting memories
    memvet store review confirm f-12 --by alice
    memvet store review invalidate f-13 --reason "temporary change, rolled back"
    memvet store expire [--dry-run]              # closed tasks, quarterly preference review
    memvet store audit [--report-only]           # long-term memories without source or confirmation
    memvet store crosscheck --project "这个项目的默认超时是多少" --task "当前任务进度" [--task-id sc0003]
    memvet store close-task sc0003
    memvet store add --kind project_fact --content "网关默认超时为 10 秒" --source commit:3e1f0aa
    memvet store events [ID]

Every subcommand takes ``--store PATH|URL`` (a SQLite file or a
``postgresql://`` URL; default ``[tool.memvet.store] url`` or ``path``,
``.memvet/memory.db``) and ``--config``; ``--format json`` prints JSON.
Only ``add`` (and ``memvet check --commit``) create a store that does not
exist yet; every other command says "no store here" (exit 2) and creates
nothing, so a typo in ``--store`` never leaves an empty database behind.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable

from memvet.check_inputs import is_jsonl, read_input as _read
from memvet.errors import MemvetError

EXIT_OK, EXIT_REJECT, EXIT_USAGE = 0, 1, 2


def _common() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--store", metavar="PATH|URL",
                   help="a SQLite file or a postgresql:// URL (default: [tool.memvet.store] url or path)")
    p.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    return p


def register(sub: Any) -> dict[str, Callable[[argparse.Namespace], int]]:
    common = _common()
    p = sub.add_parser("store", help="the reference memory store: recall, review, expire, audit, crosscheck",
                       description="Maintenance of the reference store: review, confirm, expire, audit.")
    cmds = p.add_subparsers(dest="store_command", metavar="ACTION", required=True)

    r = cmds.add_parser("recall", parents=[common], help="search one partition (kind first, then full text)")
    r.add_argument("query", nargs="?")
    r.add_argument("--kind", choices=("project_fact", "task_state", "code_preference"),
                   help="default: the kind of the question")
    r.add_argument("--scope")
    r.add_argument("--task", dest="task_id", help="the current task (task state answers only inside it)")
    r.add_argument("--limit", type=int, default=5)
    r.add_argument("--all-statuses", action="store_true", help="also pending, invalid and archived memories")

    v = cmds.add_parser("review", parents=[common], help="pending and conflicting memories; confirm or invalidate")
    vs = v.add_subparsers(dest="review_action", metavar="ACTION")
    c = vs.add_parser("confirm", parents=[common], help="a person confirms a memory: it becomes active")
    c.add_argument("id")
    c.add_argument("--by", required=True, metavar="NAME")
    i = vs.add_parser("invalidate", parents=[common], help="mark a memory invalid")
    i.add_argument("id")
    i.add_argument("--reason", required=True)
    i.add_argument("--by", metavar="NAME")
    o = vs.add_parser("restore", parents=[common], help="an invalid memory goes back to pending")
    o.add_argument("id")
    o.add_argument("--by", required=True, metavar="NAME")

    e = cmds.add_parser("expire", parents=[common], help="archive closed tasks' state; flag preferences due for review")
    e.add_argument("--dry-run", action="store_true")
    a = cmds.add_parser("audit", parents=[common], help="long-term memories without source or confirmation")
    a.add_argument("--report-only", action="store_true", help="list them without downgrading to pending")
    x = cmds.add_parser("crosscheck", parents=[common], help="ask a project and a task question; show what answered")
    x.add_argument("--project", required=True, metavar="QUESTION")
    x.add_argument("--task", required=True, metavar="QUESTION")
    x.add_argument("--task-id", help="the current task (omit to check as a new session)")
    x.add_argument("--scope")
    t = cmds.add_parser("close-task", parents=[common], help="close a task: archive its task state")
    t.add_argument("task_id")
    w = cmds.add_parser("add", parents=[common], help="write one memory by hand (back-fill a true fact)")
    w.add_argument("--kind", required=True, choices=("project_fact", "task_state", "code_preference"))
    w.add_argument("--content", required=True)
    w.add_argument("--source", action="append", default=[], help="tool:..., commit:..., a link (repeatable)")
    w.add_argument("--confirmed-by", action="append", default=[], metavar="WHO")
    w.add_argument("--task-id")
    w.add_argument("--scope")
    g = cmds.add_parser("events", parents=[common], help="the append-only event log")
    g.add_argument("id", nargs="?")
    cmds.add_parser("stats", parents=[common], help="memories per kind and status")

    rv = sub.add_parser("review", help="serve the review page: confirm pending and conflicting memories in a browser",
                        description="A local web page for the people who confirm memories (docs/store.md).")
    rv.add_argument("--store", metavar="PATH|URL", help="a SQLite file or a postgresql:// URL")
    rv.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")
    rv.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, loopback only)")
    rv.add_argument("--port", type=int, default=8737, help="port (default: 8737; 0 picks a free one)")
    rv.add_argument("--by", metavar="NAME", help="the reviewer name the page starts with (default: your login)")
    return {"store": run, "review": run_review}


def run_review(args: argparse.Namespace) -> int:
    """``memvet review``: the page over an existing store until Ctrl-C."""
    import getpass
    import socket

    try:
        from .review import make_server
    except ImportError as exc:
        raise MemvetError(f"the review page needs starlette and uvicorn ({exc}): pip install 'memvet[review]'",
                          field="review") from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"memvet: warning: serving on {args.host}, not loopback: anyone who can reach it can read the "
              "memories (actions still need the page's token)", file=sys.stderr)
    try:
        reviewer = args.by if args.by is not None else getpass.getuser()
    except (KeyError, OSError):
        reviewer = ""
    with _open(args) as store:
        family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
        sock = socket.socket(family)
        try:
            sock.bind((args.host, args.port))
        except OSError as exc:
            sock.close()
            raise MemvetError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
                              field="--port") from None
        sock.listen(128)   # listening before the URL is printed: early requests wait in the backlog
        port = sock.getsockname()[1]
        server = make_server(store, host=args.host, port=port, reviewer=reviewer)
        shown = f"[{args.host}]" if ":" in args.host else args.host
        print(f"memvet review: http://{shown}:{port}/  ({len(store.review())} waiting; Ctrl-C stops)",
              file=sys.stderr, flush=True)
        try:
            server.run(sockets=[sock])
        except KeyboardInterrupt:
            pass  # uvicorn shut down cleanly, then re-raised Ctrl-C: stopping is the normal end
        finally:
            sock.close()
    print("memvet review: stopped", file=sys.stderr)
    return EXIT_OK


def add_commit_options(p: argparse.ArgumentParser) -> None:
    """``memvet check`` options: validate and commit in one step."""
    p.add_argument("--commit", action="store_true",
                   help="after validation, commit the records to the store (refused when anything is rejected)")
    p.add_argument("--store", metavar="PATH|URL",
                   help="the store for --commit and W007: a SQLite file or a postgresql:// URL "
                        "(default: [tool.memvet.store] url or path, .memvet/memory.db)")
    p.add_argument("--stream", default="cli", help="the batch stream whose cursor --commit advances (default: cli)")
    p.add_argument("--cursor", type=int, help="the batch cursor to commit (default: the stream's next position)")


def _open(args: argparse.Namespace, *, create: bool = False) -> Any:
    from memvet.cli import load_config

    from . import open_store

    return open_store(getattr(args, "store", None), config=load_config(args), create=create)


def check_and_commit(engine: Any, args: argparse.Namespace, fmt: Callable[..., str], color: bool) -> int:
    """``memvet check --commit``: validate with the store attached (W007), print, then commit.

    A rejected report is printed and NOT committed (exit 1). Re-committing
    the same batch (same new messages) is a no-op.
    """

    from . import batch_key

    if is_jsonl(args):
        raise MemvetError("--commit takes one answer and its --context, not a JSONL file", field="--commit")
    raw = _read(args.output)
    with _open(args, create=True) as store:
        report = engine.validate(raw, args.context, store=store)
        print(fmt(report, source=args.output, color=color))
        if not report.ok:
            print("memvet: not committed: the report has rejects", file=sys.stderr)
            return EXIT_REJECT
        res = store.commit(report, stream=args.stream, cursor=args.cursor, batch_id=batch_key(args.context),
                           context=args.context)
        if res.committed:
            print(f"memvet: committed {res.records} record(s) to {store.path} (stream {args.stream!r}, cursor "
                  f"{store.get_cursor(args.stream)})", file=sys.stderr)
        else:
            print(f"memvet: this batch is already in {store.path}; nothing written", file=sys.stderr)
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    with _open(args, create=args.store_command == "add") as store:
        action = args.store_command
        if action == "recall":
            statuses = ("active", "pending", "conflict", "invalid", "archived") if args.all_statuses else None
            kw = {"statuses": statuses} if statuses else {}
            hits = store.recall(kind=args.kind, scope=args.scope, task_id=args.task_id, query=args.query,
                                limit=args.limit, **kw)
            return _emit(args, hits, _memories_text(hits, empty="no memory answers this"))
        if action == "review":
            if args.review_action == "confirm":
                m = store.confirm(args.id, by=args.by)
                return _emit(args, m, f"{m['id']}: {m['status']} (confirmed by {store.redacted(args.by)})")
            if args.review_action == "invalidate":
                m = store.invalidate(args.id, reason=args.reason, by=args.by)
                return _emit(args, m, f"{m['id']}: invalid ({m['reason']})")  # as stored: redacted
            if args.review_action == "restore":
                m = store.restore(args.id, by=args.by)
                return _emit(args, m, f"{m['id']}: {m['status']} (restored by {store.redacted(args.by)})")
            items = store.review()
            return _emit(args, items, _memories_text(items, empty="nothing waits for review"))
        if action == "expire":
            out = store.expire(dry_run=args.dry_run)
            verb = "would be" if args.dry_run else "were"
            text = (f"{len(out['archived'])} task state(s) of closed tasks {verb} archived\n"
                    + _memories_text(out["archived"], empty="") +
                    f"\n{len(out['review_due'])} preference(s) {verb} flagged for review\n"
                    + _memories_text(out["review_due"], empty=""))
            return _emit(args, out, text.strip())
        if action == "audit":
            bad = store.audit(fix=not args.report_only)
            verb = "listed" if args.report_only else "downgraded to pending"
            return _emit(args, bad, f"{len(bad)} long-term memory(ies) without source or confirmation {verb}\n"
                         + _memories_text(bad, empty=""))
        if action == "crosscheck":
            out = store.crosscheck(args.project, args.task, task_id=args.task_id, scope=args.scope)
            p, t = out["project"], out["task"]
            text = (f"project question: {p['question']}\n" + _memories_text(p["answers"], empty="  (no project fact)")
                    + f"\ntask question: {t['question']}\n"
                    + _memories_text(t["answers"], empty="  (not in the current task)" if not t["task_id"]
                                     else f"  (no task state of {t['task_id']})"))
            return _emit(args, out, text)
        if action == "close-task":
            n = store.close_task(args.task_id)
            task_id = store.redacted(args.task_id)  # the id as stored: a token typed as an id is not echoed
            return _emit(args, {"task_id": task_id, "archived": n}, f"{task_id}: {n} task state(s) archived")
        if action == "add":
            mid = store.write(args.kind, args.content, scope=args.scope, task_id=args.task_id,
                              source=args.source, confirmed_by=args.confirmed_by)
            m = store.get(mid)
            return _emit(args, m, f"{mid}: {m['status']} in {m['namespace']}")
        if action == "events":
            ev = store.events(args.id)
            return _emit(args, ev, "\n".join(f"{e['seq']:>5} {e['at']} {e['event']:<10} {e['memory_id'] or '-':<8} "
                                             f"{e['actor'] or ''} {json.dumps(e['detail'], ensure_ascii=False)}"
                                             for e in ev) or "no events")
        if action == "stats":
            s = store.stats()
            return _emit(args, s, "\n".join(f"{k:<28} {n}" for k, n in s.items()) or "empty store")
    raise MemvetError(f"unknown store action {action!r}")  # pragma: no cover - argparse restricts it


def _emit(args: argparse.Namespace, data: Any, text: str) -> int:
    if args.format == "json":
        print(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(text)
    return EXIT_OK


def _memories_text(items: list[dict[str, Any]], *, empty: str) -> str:
    if not items:
        return empty
    lines = []
    for m in items:
        where = m["task_id"] if m["kind"] == "task_state" else (m["scope"] or "")
        flag = "" if m["status"] == "active" else f" [{m['status']}]"
        prov = ", ".join([*m["source"], *m["confirmed_by"]]) or "no source"
        lines.append(f"  {m['id']:<8} {m['kind']:<15} {where:<14}{flag} {m['content']}  ({prov})")
    return "\n".join(lines)
