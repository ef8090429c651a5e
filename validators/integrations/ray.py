"""memvet on Ray Data: validate corpora larger than one machine (``pip install 'memvet[ray]'``).

>>> import ray, memvet.integrations.ray as mr                       # doctest: +SKIP
>>> ds = ray.data.read_json("answers.jsonl")                        # rows {"context": ..., "output": ...}
>>> ds = ds.map_batches(mr.MemvetValidator, compute=ray.data.ActorPoolStrategy(size=4), batch_size=64,
...                     fn_constructor_kwargs={"config": "memvet.toml"})
>>> ds.select_columns(["ok", "codes"]).take(3)

:class:`MemvetValidator` is a callable class (one engine per actor, built
once) that adds the report columns to each row: ``ok`` (bool), ``report``
(the report as compact JSON, what ``--format json`` gives per line),
``codes`` (the violation codes, in report order) and ``error`` (a caller
error -- a broken context -- or None). ``context`` may be a dict or JSON
text; ``output`` raw LLM text or a parsed value, exactly as
:func:`memvet.validate` takes them. A ``line`` column (a raw JSONL line,
bytes) is decoded the way ``memvet check FILE.jsonl`` decodes it, so
``memvet check FILE.jsonl --engine ray`` reports exactly what the local
engine reports.

:func:`check_outcomes` and :func:`audit_results` are the CLI's drivers.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

from memvet.config import Config, resolve_config
from memvet.check_inputs import LineOutcome, decode_line, formatter_named as _formatter
from memvet.errors import ContextError, MemvetError

#: Rows per Ray dataset sent at once by the CLI drivers (bounds driver memory).
CHUNK_ROWS = 2048
#: Rows per block and per batch: one task per block. Ray's default for ``from_items`` (200 blocks)
#: makes tasks of a few rows, whose scheduling costs more than validating them.
BATCH_SIZE = 128


def _blocks(rows: int, workers: int) -> int:
    """Blocks of about BATCH_SIZE rows, but at least one per worker (a short file is split too)."""
    return max(1, min(rows, max(workers, -(-rows // BATCH_SIZE))))


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MemvetError("--engine ray needs the ray extra: pip install 'memvet[ray]'", field="--engine") from None
    return ray


def ensure_ray(address: str | None = None, num_cpus: int | None = None) -> Any:
    """Join ``address`` (or start a local Ray) unless this process is already connected."""
    ray = _ray()
    if not ray.is_initialized():
        import logging

        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "logging_level": logging.ERROR}
        if address:
            kwargs["address"] = address
        elif num_cpus:
            kwargs["num_cpus"] = num_cpus
        ray.init(**kwargs)
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True   # rows come back in input order
    ctx.enable_progress_bars = False
    import logging

    logging.getLogger("ray.data").setLevel(logging.WARNING)  # no per-dataset INFO lines on the CLI's stderr
    return ray


def _tasks(ray: Any, n: int) -> dict[str, Any]:
    """``map_batches`` keywords for at most ``n`` tasks at a time.

    The CLI drivers send a file chunk by chunk, one dataset each; an actor
    pool would be started (engines built) again for every chunk. Ray reuses
    its worker processes for tasks, so a per-process cache
    (:func:`_cached_validator`) builds each engine once per worker instead.
    """
    return {"compute": ray.data.TaskPoolStrategy(size=max(n, 1))}


_VALIDATORS: dict[str, Any] = {}


def _cached_validator(factory: Any, key: str, *args: Any) -> Any:
    validator = _VALIDATORS.get(key)
    if validator is None:
        if len(_VALIDATORS) >= 8:
            _VALIDATORS.clear()
        validator = _VALIDATORS[key] = factory(*args)
    return validator


def _check_batch(batch: dict[str, Any], config: Config, fmt: str, source: str) -> dict[str, Any]:
    key = json.dumps(["check", config.model_dump_json(), fmt, source])
    return _cached_validator(MemvetValidator, key, config, fmt, source)(batch)


def _audit_batch(batch: dict[str, Any], config: Config) -> dict[str, Any]:
    return _cached_validator(_AuditValidator, json.dumps(["audit", config.model_dump_json()]), config)(batch)


def _column(batch: dict[str, Any], name: str, n: int) -> list[Any]:
    values = batch.get(name)
    return [None] * n if values is None else list(values)


def _rows(batch: dict[str, Any]) -> int:
    for values in batch.values():
        return len(values)
    return 0


class MemvetValidator:
    """``Dataset.map_batches`` callable: validates ``{context, output}`` rows, adds report columns."""

    def __init__(self, config: Config | dict[str, Any] | str | None = None, fmt: str | None = None,
                 source: str = "<ray>"):
        from memvet.engine import Engine

        self.engine = Engine(resolve_config(config))
        self.fmt_name = fmt
        self.source = source
        if fmt is not None:

            self.fmt = _formatter(fmt)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        n = _rows(batch)
        out: dict[str, list[Any]] = {"ok": [], "report": [], "codes": [], "error": []}
        if self.fmt_name is not None:
            out["text"], out["violations"] = [], []
        lines, numbers = _column(batch, "line", n), _column(batch, "n", n)
        contexts, outputs = _column(batch, "context", n), _column(batch, "output", n)
        for i in range(n):
            self._one(out, lines[i], numbers[i], contexts[i], outputs[i])
        result = {k: v for k, v in batch.items()}
        result.update(out)
        return result

    def _one(self, out: dict[str, list[Any]], line: Any, n: Any, context: Any, output: Any) -> None:

        where = f"{self.source}:{n}" if n is not None else self.source
        try:
            if line is not None:
                item = decode_line(self.source, int(n), bytes(line))
                context, output = item["context"], item["output"]
            elif isinstance(context, str):
                try:
                    context = json.loads(context)
                except ValueError as exc:
                    raise ContextError(f"context is not valid JSON: {exc}", file=where) from None
            try:
                report = self.engine.validate(output, context)
            except ContextError as exc:
                raise ContextError(exc.detail, file=where, field="/context" + (exc.field or "")) from None
        except MemvetError as exc:
            out["ok"].append(False)
            out["report"].append(None)
            out["codes"].append([])
            out["error"].append(str(exc))
            if self.fmt_name is not None:
                out["text"].append(None)
                out["violations"].append(None)
            return
        out["ok"].append(report.ok)
        out["report"].append(report.to_json(indent=None))
        out["codes"].append(report.codes())
        out["error"].append(None)
        if self.fmt_name is not None:
            if self.fmt_name == "json":
                out["text"].append(report.to_json(indent=None))
            elif self.fmt_name == "sarif":
                out["text"].append(None)
            else:
                out["text"].append(self.fmt(report, source=where, color=False))
            out["violations"].append(json.dumps([v.to_dict() for v in report.violations], ensure_ascii=False)
                                     if self.fmt_name == "sarif" else None)


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def check_outcomes(path: str, config: Config, fmt: str, *, address: str | None = None,
                   workers: int = 1) -> Iterator[Any]:
    """``memvet check FILE.jsonl --engine ray``: a :class:`~memvet.cli_check.LineOutcome` per line, in order."""
    from memvet.jsonl import iter_lines
    from memvet.report import Violation

    ray = ensure_ray(address, num_cpus=max(workers, 1) if not address else None)
    for chunk in _chunks(iter_lines(path), CHUNK_ROWS):
        ds = ray.data.from_items([{"n": n, "line": line} for n, line, _ in chunk],
                                 override_num_blocks=_blocks(len(chunk), workers))
        ds = ds.map_batches(_check_batch, fn_kwargs={"config": config, "fmt": fmt, "source": path},
                            batch_size=BATCH_SIZE, **_tasks(ray, workers))
        for row in ds.iter_rows():
            if row["error"] is not None:
                yield LineOutcome(int(row["n"]), ok=False, error=row["error"])
            elif fmt == "sarif":
                yield LineOutcome(int(row["n"]), ok=bool(row["ok"]),
                                  violations=[Violation(**v) for v in json.loads(row["violations"])])
            else:
                yield LineOutcome(int(row["n"]), ok=bool(row["ok"]), text=row["text"])


class _AuditValidator:
    """Runs prepared audit items: one engine per set of skipped checks, per actor."""

    def __init__(self, config: Config):
        self.config = config
        self.engines: dict[tuple[str, ...], Any] = {}

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        from memvet.audit.check import engine_for_skipped

        reports = []
        for output, context, skipped in zip(batch["output"], batch["context"], batch["skipped"]):
            key = tuple(json.loads(skipped))
            engine = self.engines.get(key)
            if engine is None:
                engine = self.engines[key] = engine_for_skipped(self.config, key)
            report = engine.validate(json.loads(output), json.loads(context))
            reports.append(json.dumps({**report.to_dict(), "_secrets": report.secrets}, ensure_ascii=False))
        return {"index": batch["index"], "report": reports}


def _report_from(text: str) -> Any:
    from memvet.report import Report, Violation

    d = json.loads(text)
    return Report(ok=d["ok"], violations=[Violation(**v) for v in d["violations"]], records=d["records"],
                  dropped=d["dropped"], output=d["output"], stats=d["stats"], secrets=d["_secrets"])


def audit_results(auditor: Any, records: Iterable[Any], *, address: str | None = None,
                  workers: int = 2) -> Iterator[tuple[Any, Any]]:
    """``memvet audit --engine ray``: records prepared here (archive, duplicates), checked on Ray."""
    ray = ensure_ray(address, num_cpus=workers if not address else None)
    for chunk in _chunks(records, CHUNK_ROWS):
        prepared = [auditor.prepare(r) for r in chunk]
        rows = [{"index": i, "output": json.dumps(p.output, ensure_ascii=False),
                 "context": json.dumps(p.context, ensure_ascii=False), "skipped": json.dumps(list(p.skipped))}
                for i, p in enumerate(prepared)]
        ds = ray.data.from_items(rows, override_num_blocks=_blocks(len(rows), workers))
        ds = ds.map_batches(_audit_batch, fn_kwargs={"config": auditor.config}, batch_size=BATCH_SIZE,
                            **_tasks(ray, workers))
        for row in ds.iter_rows():
            i = int(row["index"])
            yield chunk[i], auditor.result(chunk[i], prepared[i], _report_from(row["report"]))
