"""``memvet audit SOURCE``: vet memories already stored, without changing them.

::

    memvet audit ~/.tdai-memory                       # a TencentDB-Agent-Memory data directory
    memvet audit .memvet/memory.db --archive DIR      # memvet's store (path or URL)
    memvet audit records.jsonl --format json          # a JSONL of records
    memvet audit DIR --clean-out cleaned/             # plus a cleaned copy in the same format

Prints each record's findings as soon as it is checked (``json``: one object
per record and line, then ``{"summary": ...}``; ``sarif``: one log), then
the summary. Exit 1 when a record would be left out (dropped or rejected;
0 with ``--exit-zero``), 2 for an unreadable source, archive or config.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable

EXIT_OK, EXIT_FOUND = 0, 1
FORMATS = ("text", "json", "sarif")


def register(sub: Any) -> dict[str, Callable[[argparse.Namespace], int]]:
    p = sub.add_parser("audit", help="vet memories already stored (TencentDB directory, memvet store, JSONL)",
                       description="Check every stored record with the rules that apply to a stored record; "
                                   "nothing in SOURCE is changed.")
    p.add_argument("source", help="a TencentDB-Agent-Memory data directory, a memvet store (path or URL), "
                                  "or a .jsonl file of records")
    p.add_argument("--archive", metavar="DIR", help="L0 conversations to judge provenance against "
                                                    "(default: SOURCE/conversations for a TencentDB directory)")
    p.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")
    p.add_argument("--format", default="text", choices=FORMATS)
    p.add_argument("--clean-out", metavar="DIR", help="write a cleaned copy in the source's format to DIR")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local (default) or ray: the checks run as Ray Data tasks (pip install 'memvet[ray]')")
    p.add_argument("--address", help="the Ray cluster to join (default: a local Ray)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal's stderr")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when records would be left out")
    return {"audit": run_audit}


def _print_text(result: Any, out: Any) -> None:
    if not result.findings:
        return
    out.write(f"{result.where}: {result.id} {result.verdict}\n")
    for v in result.findings:
        out.write(f"    {v.path or '/'}: {v.code} {v.action} {v.message}\n")


def _progress(stream: Any) -> Any:
    from .cli_check import Progress

    class AuditProgress(Progress):
        """The check command's progress line, counting records."""

        def update(self, lines: int, done_bytes: int = 0, *, force: bool = False) -> None:
            import time

            now = time.monotonic()
            if not force and self.last is not None and now - self.last < self.interval:
                return
            self.last = now
            self.stream.write(f"\r\033[Kmemvet audit {lines} records")
            self.stream.flush()
            self.shown = True

    return AuditProgress(stream, None)


def run_audit(args: argparse.Namespace) -> int:
    from .audit import audit_source
    from .cli import load_config

    config = load_config(args)
    out = sys.stdout
    sarif = None
    if args.format == "sarif":
        from .ci_formats import SarifStream

        sarif = SarifStream(out)
    progress = None
    if not args.no_progress and sys.stderr.isatty():
        progress = _progress(sys.stderr)

    def on_result(result: Any) -> None:
        if progress is not None and out.isatty():
            progress.clear()
        if sarif is not None:
            sarif.add(result, result.where)  # SarifStream reads .violations
        elif args.format == "json":
            out.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
        else:
            _print_text(result, out)
        out.flush()

    try:
        summary = audit_source(args.source, config=config, archive=args.archive, clean_out=args.clean_out,
                               on_result=on_result, engine=args.engine, address=args.address,
                               on_progress=(lambda n: progress.update(n, 0)) if progress else None)
    finally:
        if progress is not None:
            progress.clear()
    if sarif is not None:
        sarif.close()
        print(summary.text(args.source), file=sys.stderr)
    elif args.format == "json":
        print(json.dumps({"summary": summary.to_dict()}, ensure_ascii=False))
    else:
        print(summary.text(args.source))
    if args.clean_out:
        print(f"memvet audit: cleaned copy written to {os.fspath(args.clean_out)}", file=sys.stderr)
    left_out = summary.records - summary.kept
    return EXIT_OK if left_out == 0 or args.exit_zero else EXIT_FOUND
