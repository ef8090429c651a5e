"""``memvet audit --clean-out DIR``: a cleaned copy of the audited data, in its own format.

- TencentDB directory: ``DIR/records/<same file>.jsonl`` holds the newest
  version of every kept record, fixed (secrets redacted, methods
  downgraded, temporary changes turned into ``work_task``...);
  ``DIR/conversations/`` is the archive with secrets and personal data in
  message text redacted by the same rules (P001, P002), so the copy never
  carries what the audit found.
- JSONL of records: ``DIR/<name>.jsonl``, kept records fixed.
- memvet store: ``DIR/memory.db``, a new store holding the kept records.

Left out: records the audit would drop or reject (see the summary).
The source itself is never written; ``DIR`` must not be the source.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, IO

from memvet.config import Config
from memvet.engine import Engine
from memvet.errors import MemvetError

from .check import RecordResult
from .scrub import scrubber_for
from .sources import Archive, StoredRecord


def _line(item: dict[str, Any]) -> str:
    return json.dumps(item, ensure_ascii=False) + "\n"


class CleanWriter:
    def __init__(self, kind: str, source: str, out: str, config: Config):
        self.kind, self.source, self.config = kind, source, config
        self.out = Path(out)
        src = Path(source).resolve()
        if self.out.resolve() == src or (src.is_dir() and src in self.out.resolve().parents):
            raise MemvetError("--clean-out must be outside the audited source (it is never changed)",
                              file=out, field="--clean-out")
        self.out.mkdir(parents=True, exist_ok=True)
        self.files: dict[str, IO[str]] = {}
        self.kept: list[dict[str, Any]] = []   # store only: committed in one transaction at the end
        self.redactions = 0

    def _file(self, name: str) -> IO[str]:
        f = self.files.get(name)
        if f is None:
            path = self.out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            f = self.files[name] = open(path, "w", encoding="utf-8")
        return f

    def add(self, stored: StoredRecord, result: RecordResult) -> None:
        if result.cleaned is None:
            return
        if self.kind == "tencentdb":
            self._file("records/" + Path(stored.where.rsplit(":", 1)[0]).name).write(_line(result.cleaned))
        elif self.kind == "jsonl":
            self._file(Path(self.source).name).write(_line(result.cleaned))
        else:
            record = dict(result.cleaned)
            record["kind"] = result.kind or record.get("kind")
            self.kept.append(record)

    def finish(self, archive: Archive | None) -> None:
        if self.kind == "tencentdb":
            (self.out / "records").mkdir(exist_ok=True)  # exists even when every record was left out
            if archive is not None:
                self._copy_archive(archive)
        elif self.kind == "store":
            self._write_store()

    def _copy_archive(self, archive: Archive) -> None:
        redactor = Engine(self.config.model_copy(update={"select": ["P001", "P002"], "ignore": []}))
        scrubber = scrubber_for(self.config)
        for path, lines in archive.iter_files():
            out = self._file("conversations/" + path.name)
            for _, raw, _ in lines:
                item = json.loads(raw)
                content = item.get("content")
                if isinstance(content, str) and content.strip():
                    clean = _redacted(redactor, item, content)
                    if clean != content:
                        self.redactions += 1
                        item = {**item, "content": clean}
                # Ids and session keys too, with the same placeholders as the records' source ids.
                secrets = scrubber.secrets(item)
                if secrets:
                    item = secrets.scrub_value(item)
                out.write(_line(item))

    def _write_store(self) -> None:
        from memvet.store import open_store

        path = self.out / "memory.db"
        if path.exists():
            raise MemvetError("the clean store already exists; remove it or choose another --clean-out",
                              file=str(path), field="--clean-out")
        with open_store(str(path), config=self.config) as store:
            for r in self.kept:
                r.setdefault("status", "active")
            store.commit({"ok": True, "records": self.kept}, stream="audit-clean", cursor=1)

    def close(self) -> None:
        for f in self.files.values():
            f.close()
        self.files.clear()


def _redacted(engine: Engine, item: dict[str, Any], content: str) -> str:
    """``content`` with what P001/P002 find replaced by their placeholders."""
    mid = "m"
    memory = {"content": content, "type": "work_fact", "priority": 100, "source_message_ids": [mid]}
    output = [{"new_scene_name": "audit｜archive", "new_scene_reason": "archive redaction",
               "message_ids": [mid], "memories": [memory]}]
    context = {"messages": [{"id": mid, "sessionKey": str(item.get("sessionKey") or "s"),
                             "role": "user", "content": content}]}
    report = engine.validate(output, context)
    try:
        return report.output[0]["memories"][0]["content"]
    except (IndexError, KeyError, TypeError):
        return content
