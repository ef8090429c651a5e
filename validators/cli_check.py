"""``memvet check``: validate one answer, or a JSONL file of them.

One answer: ``memvet check OUTPUT --context CONTEXT`` prints the report in
``--format`` (text, json, sarif, github or a plugin's format).

A JSONL file (no ``--context``, or a ``.jsonl`` name; ``-`` reads stdin):
one ``{"context": ..., "output": ...}`` object per line. Each line's report
is printed as soon as it is checked -- ``json`` prints one compact report
per line, ``sarif`` one log for the whole file -- then a summary (for sarif
on stderr, so stdout stays one document). Memory stays flat however long
the file is. ``--jobs N`` spreads the lines over N processes in chunks,
with a bounded number in flight, and prints them in file order. On a
terminal, stderr shows a progress bar.

Exit codes: 2 when any line or file is a caller
error (named by ``file:line`` and field), else 1 when any answer was
rejected (0 with ``--exit-zero``), else 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from .errors import ContextError, MemvetError
from .check_inputs import JSONL_SUFFIXES, LineOutcome, decode_line, is_jsonl  # noqa: F401 - re-exported
from .check_inputs import formatter_named as _formatter, read_input as _read
from .jsonl import iter_lines

EXIT_OK, EXIT_REJECT, EXIT_USAGE = 0, 1, 2


def register(sub: Any) -> dict[str, Callable[[argparse.Namespace], int]]:
    p = sub.add_parser("check", help="validate an LLM answer against its batch context",
                       description="Validate OUTPUT (raw LLM text or JSON) against --context, or every line of a "
                                   "JSONL file of {\"context\": ..., \"output\": ...} objects.")
    p.add_argument("output", nargs="+", metavar="OUTPUT",
                   help="the LLM answer (a file; - for stdin), or .jsonl files of {context, output} lines; "
                        "several files are checked in turn (one SARIF log, one --statistics table)")
    p.add_argument("--context", help="the batch context JSON (required unless OUTPUT is a .jsonl file or -)")
    p.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")
    p.add_argument("--format", "--output-format", dest="format", type=str.lower, default="text",
                   help="text (default), json, sarif, github, or a plugin's format (case-insensitive)")
    p.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    p.add_argument("--statistics", action="store_true",
                   help="print how often each code occurred (text: a table; json: a list) instead of the findings")
    p.add_argument("--quiet", "-q", action="count", default=0,
                   help="only the findings, no summary or progress; -qq prints nothing (the exit code tells)")
    from .cli import add_selection_options

    add_selection_options(p)
    p.add_argument("--show-unused-ignores", action="store_true", help="report ignore entries that matched nothing (E002)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    from memvet.store.cli import add_commit_options  # --commit, --store, --stream, --cursor

    add_commit_options(p)
    p.add_argument("--jobs", "-j", type=_jobs, default=1, metavar="N",
                   help="check a JSONL file with N processes (output order is kept; 0 = one per CPU)")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="ray: check a JSONL file on Ray Data (pip install 'memvet[ray]'); --jobs actors")
    p.add_argument("--address", help="the Ray cluster to join with --engine ray (default: a local Ray)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it is only ever drawn on stderr when stderr is a terminal)")
    p.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even when the answer is rejected (usage/context/config errors still exit 2)")
    g = p.add_argument_group("LLM judge, replayed (memvet check never calls a model)")
    g.add_argument("--judge-verdicts", metavar="FILE",
                   help="run the judge's rules (JDG001/JDG002) on verdicts recorded in FILE: a verdict cache "
                        "(.memvet/judge-cache.json, as memvet extract --judge saves it) or a .jsonl of "
                        "{key, verdict} lines; a memory asked about without a verdict gets a JDG001 warning")
    g.add_argument("--judge-pending", metavar="FILE",
                   help="write the judge prompts that have no recorded verdict to FILE, one {key, messages} "
                        "JSON line each (answer them as {key, verdict} lines for --judge-verdicts)")
    g.add_argument("--judge-model", metavar="NAME",
                   help="the judge model the verdicts were recorded for (part of each key; default: the "
                        "config's judge_model, else its model, else 'offline')")
    return {"check": run_check}


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of processes: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 (one per CPU) or more")
    return n or (os.cpu_count() or 1)


def _config(args: argparse.Namespace, extra_rules: dict[str, Any] | None = None) -> Any:
    from .cli import load_config

    config = load_config(args, extra_rules)
    if args.show_unused_ignores and not config.show_unused_ignores:
        config = config.model_copy(update={"show_unused_ignores": True})
    return config


@dataclass
class Shared:
    """What several OUTPUT files share: one SARIF log, one GitHub annotation budget, one statistics table."""

    sarif: Any = None
    github: Any = None
    stats: Any = None


def run_check(args: argparse.Namespace) -> int:
    outputs = list(args.output) if isinstance(args.output, list) else [args.output]
    for path in outputs:
        args.output = path
        if args.context is None and not is_jsonl(args):
            raise MemvetError(f"--context is required to check a single answer ({path}), or give a .jsonl file "
                              'of {"context": ..., "output": ...} lines', field="--context")
    if len(outputs) > 1 and getattr(args, "commit", False):
        raise MemvetError("--commit takes one OUTPUT", field="--commit")
    if getattr(args, "judge_pending", None) and not getattr(args, "judge_verdicts", None):
        raise MemvetError("--judge-pending needs --judge-verdicts (the verdicts replayed so far; may be an "
                          "empty .jsonl file)", field="--judge-pending")
    if args.output_file:
        from .cli_output import write_to

        with write_to(args.output_file):
            code = _run_all(args, outputs)
    else:
        code = _run_all(args, outputs)
    judge = getattr(args, "_judge", None)
    if judge is not None and args.judge_pending:
        n = judge.write_pending(args.judge_pending)
        if args.quiet < 2:
            print(f"memvet: {n} judge prompt(s) without a recorded verdict written to {args.judge_pending}",
                  file=sys.stderr)
    return code


def _engine(args: argparse.Namespace) -> Any:
    """The engine of this run: the default one, or with the judge's rules replaying recorded verdicts."""
    from .engine import Engine

    if not getattr(args, "judge_verdicts", None):
        return Engine(_config(args))
    if getattr(args, "jobs", 1) > 1 or getattr(args, "engine", "local") != "local":
        raise MemvetError("--judge-verdicts runs in this process: use --jobs 1 and --engine local",
                          field="--judge-verdicts")
    # The judge is a front end of its own (memvet.extractor); replaying needs no openai.
    from memvet.extractor.judge import JudgeGates, JudgeMethod, Judge, VerdictCache, judge_engine

    config = _config(args, {cls.code: cls for cls in (JudgeGates, JudgeMethod)})  # --select JDG is valid here
    model = args.judge_model or config.extractor.judge_model or config.extractor.model
    args._judge = Judge(None, cache=VerdictCache.recorded(args.judge_verdicts), model=model)
    return judge_engine(config, args._judge)


def _run_all(args: argparse.Namespace, outputs: list[str]) -> int:
    if len(outputs) == 1:
        args.output = outputs[0]
        return _run_check(args)
    from .ci_formats import GithubAnnotations, SarifStream
    from .cli_output import Statistics

    _formatter(args.format)  # an unknown format fails before any file is read
    shared = Shared(sarif=SarifStream(sys.stdout) if args.format == "sarif" and not args.statistics else None,
                    github=GithubAnnotations() if args.format == "github" and not args.statistics else None,
                    stats=Statistics() if args.statistics else None)
    worst = EXIT_OK
    for path in outputs:
        args.output = path
        try:
            code = _run_check(args, shared)
        except MemvetError as exc:  # one unreadable file or bad context: say so, check the others
            print(f"memvet: error: {exc}", file=sys.stderr)
            code = EXIT_USAGE
        worst = max(worst, code)  # 2 (caller error) > 1 (reject) > 0
    if shared.sarif is not None:
        shared.sarif.close()
    if shared.stats is not None and args.quiet < 2:
        print(shared.stats.render(args.format))
    if shared.github is not None and not args.quiet:
        print(shared.github.summary())
    return worst


def _run_check(args: argparse.Namespace, shared: Shared | None = None) -> int:
    from .cli_output import Statistics, quiet_text

    engine = getattr(args, "_engine", None)
    if engine is None:  # several OUTPUT files share one engine (and one config)
        engine = args._engine = _engine(args)
    fmt = _formatter(args.format)
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and args.format == "text"
                                       and not args.output_file)
    if getattr(args, "commit", False):  # validate with the store attached, then commit (memvet.store.cli)
        from memvet.store.cli import check_and_commit

        return check_and_commit(engine, args, fmt, color)
    if getattr(args, "engine", "local") == "ray" and not is_jsonl(args):
        raise MemvetError("--engine ray checks a JSONL file of {context, output} lines", field="--engine")
    if is_jsonl(args):
        if args.context is not None:
            raise MemvetError("--context does not apply to a JSONL file (each line carries its context)",
                              field="--context")
        return _check_jsonl(args, engine, fmt, color, shared)
    raw = _read(args.output)
    report = engine.validate(raw, args.context)
    if shared is not None and (shared.sarif or shared.github or shared.stats):
        if shared.sarif is not None:
            shared.sarif.add(report, args.output)
        elif shared.stats is not None:
            shared.stats.add(report.violations)
        elif args.quiet < 2:
            lines = shared.github.render(report.annotate().violations, args.output)
            if not args.quiet:
                lines.append(f"memvet: {args.output}: {'ok' if report.ok else 'rejected'}")
            if lines:
                print("\n".join(lines))
        return EXIT_OK if report.ok or args.exit_zero else EXIT_REJECT
    if args.statistics:
        stats = Statistics()
        stats.add(report.violations)
        text = stats.render(args.format)
    elif shared is not None and args.format == "json":
        text = report.to_json(indent=None)  # several files: one compact report per line, as for JSONL
    else:
        text = fmt(report, source=args.output, color=color)
    if args.quiet < 2:
        print(quiet_text(text, args.format) if args.quiet and not args.statistics else text)
    return EXIT_OK if report.ok or args.exit_zero else EXIT_REJECT


# --- JSONL: one {"context", "output"} object per line ------------------------
#
# Streaming: lines are read, checked and printed one at a time (or a bounded
# window of chunks with --jobs), so memory does not grow with the file. A
# line whose JSON or context is broken is a caller error: it is reported on
# stderr naming file:line and field, the other lines are still checked, and
# the exit code is 2. Otherwise 1 if any answer was rejected, else 0.

CHUNK_LINES = 32          # lines per task sent to a worker process
WINDOW_PER_JOB = 4        # chunks in flight per worker (bounds memory, keeps order)


def iter_jsonl(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, item)`` lazily; a malformed line raises ContextError."""
    for n, line, _ in iter_lines(path):
        yield n, decode_line(path, n, line)


def check_line(engine: Any, fmt: Callable[..., str], fmt_name: str, color: bool,
               path: str, n: int, line: bytes) -> LineOutcome:
    """Validate one line and format its report (runs in the main process or a worker)."""
    source = f"{path}:{n}"
    try:
        item = decode_line(path, n, line)
        try:
            report = engine.validate(item["output"], item["context"])
        except ContextError as exc:
            raise ContextError(exc.detail, file=source, field="/context" + (exc.field or "")) from None
    except MemvetError as exc:
        return LineOutcome(n, ok=False, error=str(exc))
    if fmt_name in VIOLATION_MODES:  # merged across lines in the main process
        return LineOutcome(n, ok=report.ok, violations=report.annotate().violations)
    if fmt_name == "json":
        return LineOutcome(n, ok=report.ok, text=report.to_json(indent=None))  # one report per line
    return LineOutcome(n, ok=report.ok, text=fmt(report, source=source, color=color))


#: What check_line returns the violations for (instead of formatted text):
#: formats whose output spans every line of the file.
STATISTICS = "statistics"
VIOLATION_MODES = ("sarif", "github", STATISTICS)


def _mode(args: argparse.Namespace) -> str:
    return STATISTICS if getattr(args, "statistics", False) else args.format


# Worker processes keep one engine each (built once, like the main process).
_WORKER: dict[str, Any] = {}


def _init_worker(config: Any, fmt_name: str, color: bool, path: str) -> None:
    from .engine import Engine

    fmt = _formatter(fmt_name) if fmt_name != STATISTICS else None
    _WORKER.update(engine=Engine(config), fmt=fmt, fmt_name=fmt_name, color=color, path=path)


def _work(chunk: list[tuple[int, bytes]]) -> list[LineOutcome]:
    w = _WORKER
    return [check_line(w["engine"], w["fmt"], w["fmt_name"], w["color"], w["path"], n, line) for n, line in chunk]


class Progress:
    """A one-line progress bar on a terminal's stderr: lines done and, for files, the share of bytes.

    Redrawn at most every ``interval`` seconds so it costs nothing per line;
    ``clear()`` wipes it before other output reaches the same terminal.
    """

    def __init__(self, stream: Any, total_bytes: int | None, *, interval: float = 0.1, width: int = 24):
        self.stream, self.total, self.interval, self.width = stream, total_bytes, interval, width
        self.last: float | None = None  # the first update always draws
        self.shown = False

    def update(self, lines: int, done_bytes: int, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and self.last is not None and now - self.last < self.interval:
            return
        self.last = now
        if self.total:
            share = min(done_bytes / self.total, 1.0)
            filled = int(share * self.width)
            bar = f"[{'#' * filled}{'.' * (self.width - filled)}] {share:4.0%} "
        else:
            bar = ""
        self.stream.write(f"\r\033[Kmemvet check {bar}{lines} lines")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False


def _progress_for(args: argparse.Namespace) -> Progress | None:
    if getattr(args, "no_progress", False) or not sys.stderr.isatty():
        return None
    total = None
    if args.output != "-":
        try:
            total = os.path.getsize(args.output)
        except OSError:
            total = None
    return Progress(sys.stderr, total)


def _outcomes(args: argparse.Namespace, engine: Any, fmt: Callable[..., str], color: bool,
              progress: Progress | None) -> Iterator[LineOutcome]:
    """Every line's outcome, in file order; serial, or over ``--jobs`` processes."""
    path, jobs = args.output, getattr(args, "jobs", 1) or 1
    if getattr(args, "engine", "local") == "ray":  # memvet.integrations.ray, same outcomes in file order
        from memvet.integrations.ray import check_outcomes

        yield from check_outcomes(path, engine.config, args.format, address=args.address, workers=jobs)
        return
    lines = iter_lines(path)
    count = 0
    if jobs <= 1:
        for n, line, done in lines:
            yield check_line(engine, fmt, _mode(args), color, path, n, line)
            count += 1
            if progress:
                progress.update(count, done)
        return
    import multiprocessing

    window = jobs * WINDOW_PER_JOB
    pending: deque[Any] = deque()
    with multiprocessing.get_context().Pool(jobs, initializer=_init_worker,
                                            initargs=(engine.config, _mode(args), color, path)) as pool:
        chunk: list[tuple[int, bytes]] = []
        done = 0

        def drain(limit: int) -> Iterator[LineOutcome]:
            nonlocal count
            while len(pending) > limit:
                batch = pending.popleft().get()
                count += len(batch)
                if progress:
                    progress.update(count, done)
                yield from batch

        for n, line, done in lines:
            chunk.append((n, line))
            if len(chunk) >= CHUNK_LINES:
                pending.append(pool.apply_async(_work, (chunk,)))
                chunk = []
                yield from drain(window)
        if chunk:
            pending.append(pool.apply_async(_work, (chunk,)))
        yield from drain(0)


def _check_jsonl(args: argparse.Namespace, engine: Any, fmt: Callable[..., str], color: bool,
                 shared: Shared | None = None) -> int:
    from .ci_formats import GithubAnnotations, SarifStream
    from .cli_output import Statistics, quiet_text

    out = sys.stdout
    quiet = getattr(args, "quiet", 0)
    progress = _progress_for(args) if not quiet else None
    share_terminal = progress is not None and out.isatty()
    mode = _mode(args)
    own = shared is None
    shared = shared or Shared(sarif=SarifStream(out) if mode == "sarif" else None,
                              github=GithubAnnotations() if mode == "github" else None,
                              stats=Statistics() if mode == STATISTICS else None)
    sarif, github, stats = shared.sarif, shared.github, shared.stats
    total = rejected = errors = 0
    try:
        for outcome in _outcomes(args, engine, fmt, color, progress):
            total += 1
            if share_terminal:
                progress.clear()
            if outcome.error is not None:
                errors += 1
                out.flush()
                print(f"memvet: error: {outcome.error}", file=sys.stderr)
                continue
            rejected += not outcome.ok
            source = f"{args.output}:{outcome.line}"
            if sarif is not None:
                sarif.add(_Violations(outcome.violations or []), source)
            elif stats is not None:
                stats.add(outcome.violations or [])
            elif quiet >= 2:
                continue
            elif github is not None:
                for text in github.render(outcome.violations or [], source):
                    out.write(text + "\n")
            else:
                out.write((quiet_text(outcome.text, args.format) if quiet else outcome.text) + "\n")
            out.flush()  # stream: each answer's report is out before the next line is read
    finally:
        if progress:
            progress.clear()
    ok = total - rejected - errors
    summary = {"answers": total, "ok": ok, "rejected": rejected, "errors": errors}
    line = f"{args.output}: {total} answers, {ok} ok, {rejected} rejected" + (f", {errors} errors" if errors else "")
    if sarif is not None:
        if own:
            sarif.close()
        if not quiet:
            print(line, file=sys.stderr)  # stdout must stay one SARIF document
    elif stats is not None:
        if own and quiet < 2:
            print(stats.render(args.format))
        if not quiet and args.format != "json":
            print(line, file=sys.stdout if own else sys.stderr)
    elif quiet:
        pass
    elif args.format == "json":
        print(json.dumps({"summary": summary}))
    elif github is not None:
        if own:
            print(github.summary())
        print(f"memvet: {line}")
    elif args.format == "text":
        print(line)
    else:
        print(line, file=sys.stderr)
    if errors:
        return EXIT_USAGE
    return EXIT_OK if rejected == 0 or args.exit_zero else EXIT_REJECT


@dataclass(slots=True)
class _Violations:
    """The part of a Report that SarifStream reads, rebuilt from a worker's outcome."""

    violations: list[Any]
