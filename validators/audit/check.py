"""Check one stored record with the engine's rules, as if it were being written now.

A stored record is not an LLM answer: it has no scene answer around it and,
unless the archive holds its sources, no batch. The audit therefore wraps
each record into a one-memory answer (a new scene named after the record's
scene) and a batch whose new messages are the archived messages it cites,
and runs the ordinary engine on that. What the data cannot support is
switched off for that record and reported as *skipped*, never as passed:

- :data:`PROVENANCE_CODES` need the cited messages (roles, times, language,
  origin); they are skipped when there is no archive, the record cites
  nothing, or a cited id does not resolve in the record's session (which
  is itself a finding: I002 when the id resolves nowhere, I005 when it only
  resolves in another session);
- T005 needs a stored ``priority``.

:data:`NOT_APPLICABLE` are the checks of an answer's scene structure
(scene ids, scene names, empty scenes): a stored record has none, so they
are neither run nor counted.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any

from memvet.config import Config
from memvet.engine import Engine
from memvet.errors import ContextError
from memvet.report import Report, Violation

from .scrub import scrubber_for
from .sources import Archive, StoredRecord, context_message

#: Checks that read the cited messages.
PROVENANCE_CODES = ("I002", "I003", "I004", "I005", "I011", "L001", "T007", "T008", "T009", "M005", "P003",
                    "W003", "W006", "W008")
#: Checks of the answer's scene structure: meaningless for a stored record.
NOT_APPLICABLE = ("S005", "S006", "S007", "S008", "S009", "S010", "I001", "I006", "L003", "L004", "L005",
                  "L006", "L007", "E002")
#: The memory fields of CONTRACT section 2 that a stored record may carry.
MEMORY_FIELDS = ("content", "type", "taskState", "priority", "source_message_ids", "metadata")
_PLACEHOLDER_ID = "memvet-audit-record"
_SCENE_ID = "audit-stored"
_MEMORY = "/0/memories/0"


@dataclass
class Prepared:
    """A record wrapped into an answer and a batch, ready for the engine (picklable, for Ray)."""

    output: list[dict[str, Any]]
    context: dict[str, Any]
    skipped: tuple[str, ...]
    findings: list[Violation] = field(default_factory=list)   # the audit's own (provenance, duplicates)


@dataclass
class RecordResult:
    """What the audit found for one record."""

    id: str
    where: str
    verdict: str                         # ok | warn | fix | reroute | drop | reject
    findings: list[Violation]
    skipped: tuple[str, ...]
    cleaned: dict[str, Any] | None       # the record as it would be written (None: left out)
    kind: str | None = None              # the write-layer kind after routing
    dropped_codes: list[str] = field(default_factory=list)

    @property
    def violations(self) -> list[Violation]:
        """The findings under the name report formatters read (SarifStream)."""
        return self.findings

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "where": self.where, "verdict": self.verdict, "kind": self.kind,
                "findings": [{"code": v.code, "name": v.name, "action": v.action, "path": v.path,
                              "message": v.message} for v in self.findings],
                "skipped": list(self.skipped)}


class Auditor:
    """Prepares and checks records; one engine per set of skipped checks."""

    def __init__(self, config: Config, archive: Archive | None = None):
        self.config = config
        self.archive = archive
        self._engines: dict[tuple[str, ...], Engine] = {}
        self.base = self.engine_for(())
        self._seen: dict[bytes, str] = {}   # digest of (type, normalised content) -> first record id

    # --- engines -----------------------------------------------------------------
    def engine_for(self, skipped: tuple[str, ...]) -> Engine:
        engine = self._engines.get(skipped)
        if engine is None:
            engine = self._engines[skipped] = engine_for_skipped(self.config, skipped)
        return engine

    def _violation(self, code: str, path: str, message: str, action: str | None = None) -> Violation | None:
        engine = self.base
        cls = engine.registry.rules.get(code)
        if cls is None or not self.config.enabled(code):
            return None  # switched off by the user's config: not emitted (and not claimed as passed)
        bound = engine.bind(cls)
        return Violation(code, cls.name, action or bound.action, path, message, "memvet.audit")

    # --- prepare -------------------------------------------------------------------
    def prepare(self, stored: StoredRecord) -> Prepared:
        record = stored.record
        memory = {k: record[k] for k in MEMORY_FIELDS if k in record}
        for optional in ("taskState", "metadata"):
            if memory.get(optional) is None:
                memory.pop(optional, None)  # stored as null: absent, as the contract has it
        skipped: list[str] = []
        findings: list[Violation] = []
        if "priority" not in record:
            memory["priority"] = 100   # never judged: T005 is skipped below
            skipped.append("T005")
        messages = self._provenance(stored, memory, findings)
        if messages is None:
            skipped.extend(PROVENANCE_CODES)
            session = stored.session_key or "memvet-audit"
            messages = [{"id": _PLACEHOLDER_ID, "sessionKey": session, "role": "system", "content": "",
                         "timestamp": None}]
            if not _id_list(memory.get("source_message_ids")):
                memory["source_message_ids"] = [_PLACEHOLDER_ID]
            ids = [_PLACEHOLDER_ID]
        else:
            ids = list(dict.fromkeys(m["id"] for m in messages))
        dup = self._duplicate(stored)
        if dup is not None:
            findings.append(dup)
        # A reuse scene: no free text of the audit's own for L001 to judge, and task state is
        # routed to the record's task (its taskId, else its scene).
        scene_id = next((v for v in (record.get("taskId"), record.get("task_id"), record.get("scene_name"))
                         if isinstance(v, str) and v), _SCENE_ID)
        label = record.get("scene_name") if isinstance(record.get("scene_name"), str) else scene_id
        scene = {"scene_id": scene_id, "message_ids": ids, "memories": [memory]}
        known = tuple(self.base.registry.rules)
        skip = tuple(sorted({c for c in skipped if c in known}))
        context = {"messages": messages, "scenePool": [{"id": scene_id, "label": label or scene_id}]}
        return Prepared([scene], context, skip, [f for f in findings if f is not None])

    def _provenance(self, stored: StoredRecord, memory: dict[str, Any],
                    findings: list[Violation | None]) -> list[dict[str, Any]] | None:
        """The cited archived messages, or None when provenance cannot be judged."""
        ids = _id_list(memory.get("source_message_ids"))
        if self.archive is None or not ids:
            return None
        session = stored.session_key
        if session is None:  # no sessionKey stored: the one session that holds every id, if any
            common = None
            for mid in ids:
                found = self.archive.sessions_of(mid)
                if len(found) >= self.archive.SESSIONS_KEPT:
                    return None  # an id in many sessions: which one is meant cannot be told
                common = set(found) if common is None else common & set(found)
            if not common or len(common) > 1:
                return None
            session = next(iter(common))
        messages, broken, seen = [], False, set()
        for k, mid in enumerate(ids):
            item = self.archive.message(mid, session)
            if item is not None:
                if mid not in seen:  # an id cited twice is I007's finding; the batch holds the message once
                    seen.add(mid)
                    messages.append(context_message(item))
                continue
            broken = True
            others = sorted(set(self.archive.sessions_of(mid)))
            if others:
                findings.append(self._violation(
                    "I005", f"/source_message_ids/{k}",
                    f"source id {mid!r} is not a message of this record's session {session!r}; "
                    f"it names a message of another session ({', '.join(others[:3])})"))
            else:
                findings.append(self._violation(
                    "I002", f"/source_message_ids/{k}",
                    f"source id {mid!r} names no message in the archive (session {session!r})"))
        return None if broken else messages

    def _duplicate(self, stored: StoredRecord) -> Violation | None:
        content, kind = stored.record.get("content"), stored.record.get("type")
        if not isinstance(content, str):
            return None
        # A 16-byte digest per record, not the text: memory stays flat however long the contents are.
        key = hashlib.blake2b(f"{kind}\0{normalise(content)}".encode("utf-8", "surrogatepass"),
                              digest_size=16).digest()
        first = self._seen.setdefault(key, stored.id)
        if first == stored.id:
            return None
        # An identical stored copy adds nothing (seed 000: merge, don't fragment): it is left out.
        return self._violation("Q001", "/content", f"the same memory as record {first!r}; keep one", action="drop")

    # --- check ---------------------------------------------------------------------
    def check(self, stored: StoredRecord) -> RecordResult:
        prepared = self.prepare(stored)
        try:
            report = self.engine_for(prepared.skipped).validate(prepared.output, prepared.context)
        except ContextError as exc:  # the batch is built from the archive: name the record it was built for
            raise ContextError(f"the archive messages this record cites do not form a valid batch: {exc}",
                               file=stored.where) from None
        return self.result(stored, prepared, report)

    def result(self, stored: StoredRecord, prepared: Prepared, report: Report) -> RecordResult:
        return build_result(self.config, stored, prepared, report)


def engine_for_skipped(config: Config, skipped: tuple[str, ...]) -> Engine:
    """An engine with the not-applicable and the ``skipped`` checks switched off."""
    probe = Engine(config)
    known = set(probe.registry.rules)
    off = [c for c in (*NOT_APPLICABLE, *skipped) if c in known]
    return Engine(config.model_copy(update={"ignore": [*config.ignore, *off], "show_unused_ignores": False}))


def build_result(config: Config, stored: StoredRecord, prepared: Prepared, report: Report) -> RecordResult:
    findings = list(prepared.findings)
    for v in report.violations:
        findings.append(Violation(v.code, v.name, v.action, _relative(v.path), v.message, v.rule, v.fix))
    dropped_codes = sorted({c for d in report.dropped for c in d.get("codes", [])})
    dropped_codes += [f.code for f in prepared.findings if f.action == "drop"]
    actions = {v.action for v in findings}
    record = report.records[0] if report.records else None
    kind = record.get("kind") if record else None
    typ = stored.record.get("type")
    rerouted = record is not None and kind != config.routing.kinds.get(typ if isinstance(typ, str) else "", kind)
    if "reject" in actions:
        verdict = "reject"
    elif dropped_codes or record is None:
        verdict = "drop"
    elif rerouted:
        verdict = "reroute"
    else:
        verdict = "fix" if "fix" in actions else "warn" if actions else "ok"
    cleaned = None
    if verdict not in ("reject", "drop") and record is not None:
        cleaned = _cleaned(stored.record, report.output[0]["memories"][0], kind)
    # Fields the engine never rewrites (id, scene_name, taskId, source ids...) and the audit's
    # own messages: a secret anywhere in the record is redacted in all of them too.
    secrets = scrubber_for(config).secrets(stored.record, stored.id,
                                           [f.message for f in prepared.findings if f is not None])
    record_id = stored.id
    if secrets:
        record_id = secrets.scrub(stored.id) if isinstance(stored.id, str) else stored.id
        findings = [replace(v, message=secrets.describe(v.message)) for v in findings]
        cleaned = secrets.scrub_value(cleaned) if cleaned is not None else None
    return RecordResult(record_id, stored.where, verdict, findings, prepared.skipped, cleaned, kind,
                        sorted(set(dropped_codes)))


def _cleaned(original: dict[str, Any], fixed: dict[str, Any], kind: str | None) -> dict[str, Any]:
    """The stored record with the engine's fixes applied, in the record's own shape."""
    out = dict(original)
    out["content"] = fixed["content"]
    if "type" in original:
        out["type"] = fixed["type"]
    for key in ("metadata", "taskState"):
        if key in fixed:
            out[key] = fixed[key]
        elif key in original and original[key] is not None:
            out.pop(key)
    if kind == "task_state" and out.get("type") != "work_task":
        # A format with only `type`: task state is a work_task (W005/W006 rerouted it).
        out["type"] = "work_task"
    return out


def _relative(path: str) -> str:
    """A pointer into the wrapped answer -> a pointer into the stored record."""
    for prefix in (_MEMORY, "/records/0"):
        if path == prefix:
            return ""
        if path.startswith(prefix + "/"):
            return path[len(prefix):]
    return path


def _id_list(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, str) and v]


def normalise(text: str) -> str:
    """Content compared for duplicates: width/case folded, whitespace and punctuation removed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if not (ch.isspace() or unicodedata.category(ch).startswith("P")))
