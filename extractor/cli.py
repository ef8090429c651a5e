"""``memvet extract``, ``memvet run`` and ``memvet demo``.

Exit codes as for ``memvet check``: 0 nothing rejected, 1 a reject
remains (after repairs), 2 usage, context, config or endpoint error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from memvet.errors import MemvetError
from .stores import open_store_for  # noqa: F401 - its home moved; run_run uses it

EXIT_OK, EXIT_REJECT, EXIT_USAGE = 0, 1, 2


def register(sub: Any) -> dict[str, Callable[[argparse.Namespace], int]]:
    p = sub.add_parser("extract", help="ask an LLM for the memories of one batch, validate and repair them",
                       description="Render CONTEXT.json with the extraction prompt, call an OpenAI-compatible "
                                   "endpoint, validate the answer and repair rejected scenes.")
    p.add_argument("context", help="the batch context JSON (format: docs/formats.md)")
    _endpoint_flags(p)
    p.add_argument("--out", help="write the result JSON here instead of printing it")
    p.add_argument("--dry-run", action="store_true", help="print the rendered prompt messages; call nothing")
    p.add_argument("--format", choices=("json", "text"), default="json",
                   help="json: answer, report and attempts (default); text: the report as `memvet check` prints it")

    p = sub.add_parser("run", help="extract, validate and commit every batch of a sessions JSONL file",
                       description="Read L0 messages (one per line), cut each session into batches, extract, "
                                   "validate, repair and commit them through the store, resuming at each "
                                   "session's cursor.")
    p.add_argument("sessions", help="JSONL file: one message per line (id, sessionKey, role, content, timestamp)")
    _endpoint_flags(p)
    _run_flags(p)

    p = sub.add_parser("demo", help="an offline extract -> validate -> repair -> commit cycle on a loopback server",
                       description="Replay the scripted answers of examples/demo through a local "
                                   "OpenAI-compatible server and the real client, validator and store.")
    p.add_argument("--dir", help="the demo folder (default: examples/demo here, else the copy installed with memvet)")
    p.add_argument("--store", help="store file to keep (default: a temporary one)")
    p.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")
    return {"extract": run_extract, "run": run_run, "demo": run_demo}


def _endpoint_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("endpoint (flags beat OPENAI_BASE_URL / OPENAI_API_KEY / MEMVET_MODEL, "
                             "which beat [tool.memvet.extractor])")
    g.add_argument("--model", help="model name (env MEMVET_MODEL)")
    g.add_argument("--base-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (env OPENAI_BASE_URL)")
    g.add_argument("--api-key", help="API key (prefer env OPENAI_API_KEY; local servers need none)")
    g.add_argument("--timeout", type=float, help="seconds per request (default 60)")
    g.add_argument("--retries", type=int, help="retries on 429/5xx/timeouts (default 3)")
    g.add_argument("--structured", choices=("auto", "json_schema", "json_object", "off"),
                   help="structured outputs: auto (default) tries json_schema, then json_object, then plain")
    g.add_argument("--prompt", help="your own prompt template (default: the built-in Chinese prompt)")
    g.add_argument("--max-repairs", type=int, help="repair rounds per batch (default 2)")
    g.add_argument("--token-budget", type=int, help="tokens one batch may spend on its calls (default 60000)")
    g.add_argument("--judge", action="store_true", help="enable the LLM judge plugin (JDG001/JDG002)")
    g.add_argument("--judge-model", help="model for the judge (default: --model)")
    g.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")


def _run_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", help="store file (default: [tool.memvet.store] path, .memvet/memory.db)")
    p.add_argument("--window", type=int, help="new messages per batch (default 10)")
    p.add_argument("--background", type=int, help="earlier messages shown as background (default 4)")
    p.add_argument("--concurrency", type=int, help="sessions processed at once (default 4)")
    p.add_argument("--known-project", action="append", default=[], metavar="NAME",
                   help="a project name to show the model (repeatable)")
    p.add_argument("--on-reject", choices=("stop", "skip"), default="stop",
                   help="a batch still rejected after repairs: stop its session (default; the next run asks "
                        "again) or skip it (commit it empty so the cursor moves on)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="summary format")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


# --- shared helpers ------------------------------------------------------------------

def _config(args: argparse.Namespace) -> Any:
    from memvet.cli import load_config

    return load_config(args)


def _pick(flag: Any, configured: Any) -> Any:
    return flag if flag is not None else configured


def _settings(args: argparse.Namespace, config: Any, **extra: Any) -> Any:
    from .client import resolve_settings

    return resolve_settings(model=args.model, base_url=args.base_url, api_key=args.api_key,
                            config=config.extractor, timeout=args.timeout, retries=args.retries,
                            structured=args.structured, **extra)


def _template(args: argparse.Namespace, config: Any) -> Any:
    from .prompt import load_template

    path = args.prompt or config.extractor.prompt
    if path and not args.prompt and config.source:
        path = str(Path(config.source).parent / path)  # config paths are relative to the config file
    return load_template(path)


def _judge(args: argparse.Namespace, config: Any, settings: Any) -> Any:
    """The judge when enabled (flag or config), else None."""
    if not (args.judge or config.extractor.judge):
        return None
    from .client import ChatClient, with_settings
    from .judge import Judge, VerdictCache

    model = args.judge_model or config.extractor.judge_model or settings.model
    cache_dir = Path(config.store.path).parent
    return Judge(ChatClient(with_settings(settings, model=model)), cache=VerdictCache(cache_dir / "judge-cache.json"))


def _engine(config: Any, judge: Any) -> Any:
    from memvet.engine import Engine

    if judge is None:
        return Engine(config)
    from .judge import judge_engine

    return judge_engine(config, judge)


def _loop_options(args: argparse.Namespace, config: Any) -> dict[str, Any]:
    return {"max_repairs": _pick(args.max_repairs, config.extractor.max_repairs),
            "token_budget": _pick(args.token_budget, config.extractor.token_budget)}


def _finish_judge(judge: Any) -> dict[str, Any] | None:
    if judge is None:
        return None
    judge.cache.save()
    cost = judge.cost()
    print(f"judge: {cost['calls']} calls, {cost['cached']} cached, {cost['total_tokens']} tokens", file=sys.stderr)
    return cost


# --- memvet extract ------------------------------------------------------------------

def run_extract(args: argparse.Namespace) -> int:
    from memvet.context import load_context

    from .client import ChatClient
    from .extract import extract
    from .prompt import render

    config = _config(args)
    template = _template(args, config)
    batch = load_context(args.context)
    if args.dry_run:
        messages = render(batch, template=template)
        if args.format == "json":
            _emit(json.dumps(messages, ensure_ascii=False, indent=2), args.out)
        else:
            _emit("\n\n".join(f"=== {m['role']} ===\n{m['content']}" for m in messages), args.out)
        return EXIT_OK
    settings = _settings(args, config)
    judge = _judge(args, config, settings)
    client = ChatClient(settings)
    try:
        result = extract(batch, client, engine=_engine(config, judge), template=template,
                         **_loop_options(args, config))
    finally:
        client.close()
    cost = _finish_judge(judge)
    if args.format == "json":
        doc = result.to_dict()
        if cost is not None:
            doc["judge"] = cost
        _emit(json.dumps(doc, ensure_ascii=False, indent=2), args.out)
    else:
        from memvet.formats import format_text

        _emit(format_text(result.report, source=args.context), args.out)
    u = result.usage
    verdict = "ok" if result.ok else f"rejected ({result.stop})"
    print(f"extract: {verdict} after {result.repairs} repair(s) · {len(result.report.records)} records · "
          f"{u.total_tokens} tokens in {len(result.attempts)} call(s)", file=sys.stderr)
    return EXIT_OK if result.ok else EXIT_REJECT


def _emit(text: str, out: str | None) -> None:
    if out:
        try:
            Path(out).write_text(text + "\n", "utf-8")
        except OSError as exc:
            raise MemvetError(f"cannot write: {exc.strerror or exc}", file=out) from None
    else:
        print(text)


# --- memvet run ------------------------------------------------------------------------

def run_run(args: argparse.Namespace) -> int:
    from .sessions import Progress, read_messages, run_sessions

    config = _config(args)
    template = _template(args, config)
    sessions = read_messages(args.sessions)
    settings = _settings(args, config)
    judge = _judge(args, config, settings)
    store = open_store_for(args.store, config)
    ex = config.extractor
    progress: Progress | None = None

    def on_event(event: dict[str, Any]) -> None:
        nonlocal progress
        if event["kind"] == "plan":
            progress = Progress(event["batches"], enabled=False if args.no_progress else None)
            progress.draw()
        elif progress is not None:
            result = event.get("result")
            progress.advance(result.usage.total_tokens if result else 0, event["session"])

    import asyncio

    try:
        summary = asyncio.run(run_sessions(
            sessions, settings=settings, store=store, engine=_engine(config, judge), template=template,
            window=_pick(args.window, ex.window), background=_pick(args.background, ex.background),
            concurrency=_pick(args.concurrency, ex.concurrency), known_projects=args.known_project,
            on_reject=args.on_reject, on_event=on_event, **_loop_options(args, config)))
    finally:
        if progress is not None:
            progress.close()
        store.close()
    cost = _finish_judge(judge)
    if args.format == "json":
        doc = summary.to_dict()
        if cost is not None:
            doc["judge"] = cost
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    else:
        print(summary.table())
    return summary.exit_code


# --- memvet demo -------------------------------------------------------------------------

def run_demo(args: argparse.Namespace) -> int:
    from .demo import find_demo_dir, run_demo as demo

    config = _config(args)
    folder = find_demo_dir(args.dir)
    return demo(folder, store_path=args.store, config=config, out=sys.stdout)
