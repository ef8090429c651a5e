"""``memvet check``: validate one answer, or a JSONL file of them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

from .errors import ContextError, MemvetError

EXIT_OK, EXIT_REJECT, EXIT_USAGE = 0, 1, 2


def register(sub: Any) -> dict[str, Callable[[argparse.Namespace], int]]:
    p = sub.add_parser("check", help="validate an LLM answer against its batch context",
                       description="Validate OUTPUT (raw LLM text or JSON) against --context, or every line of a "
                                   "JSONL file of {\"context\": ..., \"output\": ...} objects.")
    p.add_argument("output", help="the LLM answer (a file; - for stdin), or a .jsonl file of {context, output} lines")
    p.add_argument("--context", help="the batch context JSON (required unless OUTPUT is JSONL)")
    p.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")
    p.add_argument("--format", default="text", help="text (default), json, sarif, github, or a plugin's format")
    p.add_argument("--show-unused-ignores", action="store_true", help="report ignore entries that matched nothing (E002)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    return {"check": run_check}


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise MemvetError(f"cannot read: {exc.strerror or exc}", file=path) from None


def _formatter(name: str) -> Callable[..., str]:
    from .registry import default_registry

    formats = default_registry().formats
    if name not in formats:
        raise MemvetError(f"unknown format {name!r} (known: {', '.join(sorted(formats))})", field="--format")
    return formats[name]


def _config(args: argparse.Namespace) -> Any:
    from .cli import load_config

    config = load_config(args)
    if args.show_unused_ignores and not config.show_unused_ignores:
        config = config.model_copy(update={"show_unused_ignores": True})
    return config


def is_jsonl(args: argparse.Namespace) -> bool:
    return args.context is None or args.output.endswith(".jsonl")


def run_check(args: argparse.Namespace) -> int:
    from .engine import Engine

    config = _config(args)
    engine = Engine(config)
    fmt = _formatter(args.format)
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and args.format == "text")
    if is_jsonl(args):
        if args.context is not None:
            raise MemvetError("--context does not apply to a JSONL file (each line carries its context)",
                              field="--context")
        return _check_jsonl(args, engine, fmt, color)
    raw = _read(args.output)
    report = engine.validate(raw, args.context)
    print(fmt(report, source=args.output, color=color))
    return EXIT_OK if report.ok else EXIT_REJECT


def iter_jsonl(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, item)`` lazily; a malformed line is a caller error."""
    stream = sys.stdin.buffer if path == "-" else open(path, "rb")
    with stream:
        for n, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as exc:
                raise ContextError(f"line is not JSON: {exc}", file=f"{path}:{n}") from None
            if not isinstance(item, dict) or "context" not in item or "output" not in item:
                raise ContextError('each line must be an object with "context" and "output"', file=f"{path}:{n}")
            yield n, item


def _check_jsonl(args: argparse.Namespace, engine: Any, fmt: Callable[..., str], color: bool) -> int:
    total = rejected = 0
    for n, item in iter_jsonl(args.output):
        source = f"{args.output}:{n}"
        try:
            report = engine.validate(item["output"], item["context"])
        except ContextError as exc:
            raise ContextError(exc.detail, file=source, field=("/context" + (exc.field or ""))) from None
        total += 1
        rejected += not report.ok
        print(fmt(report, source=source, color=color))
    summary = {"answers": total, "rejected": rejected, "ok": total - rejected}
    if args.format == "text":
        print(f"{args.output}: {total} answers, {total - rejected} ok, {rejected} rejected")
    elif args.format == "json":
        print(json.dumps({"summary": summary}))
    return EXIT_OK if rejected == 0 else EXIT_REJECT
