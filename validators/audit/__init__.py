"""``memvet audit``: vet memories that are already stored, without changing them.

>>> from memvet.audit import audit_source               # doctest: +SKIP
>>> summary = audit_source("examples/tencentdb/planted", on_result=print)   # doctest: +SKIP

Sources (:mod:`memvet.audit.sources`): a TencentDB-Agent-Memory data
directory, memvet's own store (path or URL) or a JSONL of records. Each
record is checked by the rules that apply to a stored record
(:mod:`memvet.audit.check`); provenance is judged against the archive
(the directory's ``conversations/``, or ``archive=`` for the other sources).
``clean_out`` writes a cleaned copy in the source's own format
(:mod:`memvet.audit.clean`). Nothing in the source is ever written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

from memvet.config import Config, resolve_config
from memvet.errors import MemvetError

from .check import NOT_APPLICABLE, PROVENANCE_CODES, Auditor, RecordResult
from .sources import Archive, StoredRecord, iter_jsonl_records, iter_store_records, iter_tencentdb_records, source_kind
from .summary import Summary

__all__ = ["audit_source", "Auditor", "RecordResult", "Summary", "PROVENANCE_CODES", "NOT_APPLICABLE",
           "open_records"]


def open_records(source: str, *, archive: str | None = None) -> tuple[str, Iterator[StoredRecord], Archive | None,
                                                                      Callable[[], None]]:
    """``(kind, records, archive, close)`` for ``source``."""
    kind = source_kind(source)
    arch = None
    if kind == "tencentdb":
        conversations = Path(source) / "conversations"
        arch = Archive(conversations) if conversations.is_dir() else None
        records: Iterator[StoredRecord] = iter_tencentdb_records(Path(source))
        close: Callable[[], None] = lambda: None
    elif kind == "jsonl":
        records, close = iter_jsonl_records(Path(source)), (lambda: None)
    else:
        from memvet.store import open_store

        store = open_store(source)
        records, close = iter_store_records(store, source), store.close
    if archive is not None:
        folder = Path(archive)
        folder = folder / "conversations" if (folder / "conversations").is_dir() else folder
        if not folder.is_dir():
            raise MemvetError("the archive must be a conversations/ folder of JSONL files (or its data directory)",
                              file=archive, field="--archive")
        arch = Archive(folder)
    return kind, records, arch, close


def audit_source(source: str, *, config: Config | dict[str, Any] | str | None = None, archive: str | None = None,
                 clean_out: str | None = None, on_result: Callable[[RecordResult], None] | None = None,
                 engine: str = "local", address: str | None = None,
                 on_progress: Callable[[int], None] | None = None) -> Summary:
    """Audit every record of ``source``; ``on_result`` gets each record's result as soon as it is known."""
    cfg = resolve_config(config)
    kind, records, arch, close = open_records(source, archive=archive)
    auditor = Auditor(cfg, arch)
    summary = Summary()
    writer = None
    if clean_out is not None:
        from .clean import CleanWriter

        writer = CleanWriter(kind, source, clean_out, cfg)
    try:
        if engine == "ray":
            from memvet.integrations.ray import audit_results

            results: Iterator[tuple[StoredRecord, RecordResult]] = audit_results(auditor, records, address=address)
        else:
            results = ((r, auditor.check(r)) for r in records)
        for n, (stored, result) in enumerate(results, 1):
            summary.add(result)
            if writer is not None:
                writer.add(stored, result)
            if on_result is not None:
                on_result(result)
            if on_progress is not None:
                on_progress(n)
        if writer is not None:
            writer.finish(arch)
    finally:
        close()
        if arch is not None:
            arch.close()
        if writer is not None:
            writer.close()
    return summary
