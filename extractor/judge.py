"""The optional LLM judge: a model rules on the gates where the heuristics are unsure.

Off by default and never needed by the default path: it is a plugin in
the style of a third-party one (code prefix ``JDG``), registered through
the ``memvet_rules`` hook only when enabled (``--judge``, or ``judge =
true`` in ``[tool.memvet.extractor]``), into an engine built for it::

    judge = Judge(ChatClient(settings), cache=VerdictCache(".memvet/judge-cache.json"))
    engine = judge_engine(config, judge)          # the built-ins plus JDG001/JDG002
    report = engine.validate(answer, context)
    judge.cost()                                  # calls, cache hits, tokens

Which memories are "uncertain": the heuristic rules (G, M) have already
run on a memory when the judge sees it (plugins run after the built-in
families). A memory they dropped is settled and never sent. Of the rest,
the judge looks at every ``work_method`` (the five-point self-check is
where word lists are weakest), at memories whose ``priority`` is at most
``max_priority`` (the borderline ones the model itself rated low), and at
every memory a low-confidence finding was lowered to a warning on
(``confidence: low``, CONTRACT.md section 3; ``RuleContext.is_low``).

Verdicts are cached by a hash of everything the judge is shown (prompt,
model, memory, source messages), in memory and optionally in a JSON file,
so a rerun or a repaired answer does not pay twice. When the judge's
endpoint fails, the memory gets a ``warn`` and the run goes on.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Iterator

from memvet.errors import MemvetError
from memvet.hookspecs import hookimpl
from memvet.parse import parse_output
from memvet.rule import Finding, Rule, RuleOptions

from .client import ChatClient, ChatRequest, EndpointError, Usage
from .prompt import PromptTemplate, _package_text, fill, format_messages

#: The model name in the verdict keys of a replay when none is given.
REPLAY_MODEL = "offline"

GATES = {"stripping": "stripping", "one_time": "one-time", "provenance": "provenance"}
METHOD_ONLY_KEYS = ("scope", "method_type")

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "stripping": {"type": "boolean"},
        "one_time": {"type": "boolean"},
        "provenance": {"type": "boolean"},
        "method": {"type": ["boolean", "null"]},
        "reason": {"type": "string"},
    },
    "required": ["stripping", "one_time", "provenance", "method", "reason"],
    "additionalProperties": False,
}


@cache
def judge_template() -> PromptTemplate:
    return PromptTemplate.from_text(_package_text("judge-zh.md"), source="memvet.extractor/judge-zh.md",
                                    fields=frozenset({"memory", "sources"}))


@dataclass(frozen=True)
class Verdict:
    """The judge's ruling; ``True`` means the memory passes that check."""

    stripping: bool
    one_time: bool
    provenance: bool
    method: bool | None
    reason: str

    @property
    def failed_gates(self) -> list[str]:
        return [name for key, name in GATES.items() if getattr(self, key) is False]

    def to_dict(self) -> dict[str, Any]:
        return {"stripping": self.stripping, "one_time": self.one_time, "provenance": self.provenance,
                "method": self.method, "reason": self.reason}

    @classmethod
    def from_value(cls, value: Any) -> "Verdict | None":
        if not isinstance(value, dict):
            return None
        gates = [value.get(k) for k in GATES]
        method = value.get("method")
        if not all(isinstance(g, bool) for g in gates) or not (method is None or isinstance(method, bool)):
            return None
        return cls(*gates, method, str(value.get("reason") or "")[:300])


class VerdictCache:
    """Verdicts by content hash; persisted as one JSON object when ``path`` is given."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else None
        self._data: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        if self.path and self.path.is_file():
            try:
                loaded = json.loads(self.path.read_text("utf-8"))
            except (OSError, ValueError):
                loaded = {}  # a damaged cache is only a cache: start over
            if isinstance(loaded, dict):
                self._data = {k: v for k, v in loaded.items() if isinstance(v, dict)}

    @classmethod
    def recorded(cls, path: str | Path) -> "VerdictCache":
        """Verdicts to replay, read strictly (nothing is called for a memory without one).

        ``path`` is a cache file (one JSON object, key -> verdict, as ``memvet
        extract --judge`` saves it) or a ``.jsonl`` file of ``{"key": ...,
        "verdict": {...}}`` lines (what a person or another model wrote for the
        prompts of ``--judge-pending``). Unlike the cache, a file that cannot be
        read or holds a malformed verdict is an error naming the file and line:
        a replay that silently judged nothing would switch the judge off.
        """
        path = Path(path)
        try:
            text = path.read_text("utf-8")
        except OSError as exc:
            raise MemvetError(f"cannot read the judge verdicts: {exc.strerror or exc}", file=str(path)) from None
        cache = cls()
        if path.suffix == ".jsonl":
            for n, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                except ValueError as exc:
                    raise MemvetError(f"line {n} is not JSON ({exc})", file=str(path)) from None
                key = item.get("key") if isinstance(item, dict) else None
                verdict = Verdict.from_value(item.get("verdict")) if isinstance(key, str) else None
                if verdict is None:
                    raise MemvetError(f"line {n} is not a {{\"key\": ..., \"verdict\": {{...}}}} object with the "
                                      f"verdict's fields {sorted(VERDICT_SCHEMA['required'])}", file=str(path),
                                      field=f"line {n}")
                cache.put(key, verdict)
            return cache
        try:
            loaded = json.loads(text)
        except ValueError as exc:
            raise MemvetError(f"the judge verdicts are not JSON ({exc})", file=str(path)) from None
        if not isinstance(loaded, dict):
            raise MemvetError("the judge verdicts must be one JSON object (key -> verdict) or a .jsonl file",
                              file=str(path))
        for key, value in loaded.items():
            verdict = Verdict.from_value(value)
            if verdict is None:
                raise MemvetError("not a verdict object", file=str(path), field=f"/{key}")
            cache.put(key, verdict)
        return cache

    def get(self, key: str) -> Verdict | None:
        with self._lock:
            raw = self._data.get(key)
        return Verdict.from_value(raw) if raw is not None else None

    def put(self, key: str, verdict: Verdict) -> None:
        with self._lock:
            self._data[key] = verdict.to_dict()

    def __len__(self) -> int:
        return len(self._data)

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            text = json.dumps(self._data, ensure_ascii=False, sort_keys=True, indent=0)
        self.path.write_text(text, "utf-8")


class Judge:
    """Asks a model for a :class:`Verdict`, once per distinct memory."""

    def __init__(self, client: ChatClient | None, *, cache: VerdictCache | None = None, model: str | None = None):
        """``client=None`` replays: verdicts come from ``cache`` only, and a memory without one
        is listed in :attr:`pending` (its key and prompt) instead of being sent anywhere."""
        self.client = client
        self.model = client.settings.model if client is not None else (model or REPLAY_MODEL)
        self.cache = cache if cache is not None else VerdictCache()  # an empty cache is falsy
        self.calls = self.hits = self.errors = 0
        self.usage = Usage()
        self.pending: dict[str, list[dict[str, str]]] = {}

    def key(self, memory: dict[str, Any], sources: list[Any]) -> str:
        t = judge_template()
        shown = {"prompt": t.system + t.user, "model": self.model,
                 "type": memory.get("type"), "content": memory.get("content"), "metadata": memory.get("metadata"),
                 "sources": [[m.sessionKey, m.id, m.role, m.content] for m in sources]}
        return hashlib.sha256(json.dumps(shown, ensure_ascii=False, sort_keys=True).encode()).hexdigest()

    def rule(self, memory: dict[str, Any], sources: list[Any]) -> Verdict:
        """The verdict for ``memory``; raises :class:`EndpointError` when no verdict could be had."""
        key = self.key(memory, sources)
        cached = self.cache.get(key)
        if cached is not None:
            self.hits += 1
            return cached
        messages = self.prompt(memory, sources)
        if self.client is None:
            self.pending[key] = messages
            raise EndpointError("no recorded verdict for this memory (replay: the judge calls nothing; "
                                "--judge-pending lists the prompts to answer)")
        completion = self.client.complete(ChatRequest(messages, VERDICT_SCHEMA, "memvet_judge_verdict"))
        self.calls += 1
        self.usage = self.usage + completion.usage
        parsed = parse_output(completion.text)
        verdict = Verdict.from_value(parsed.value if parsed.ok else None)
        if verdict is None:
            self.errors += 1
            raise EndpointError(f"the judge's answer is not a verdict object: {completion.text[:120]!r}")
        self.cache.put(key, verdict)
        return verdict

    @staticmethod
    def prompt(memory: dict[str, Any], sources: list[Any]) -> list[dict[str, str]]:
        """The chat messages the judge is shown for ``memory`` and its cited ``sources``."""
        t = judge_template()
        shown = {k: memory.get(k) for k in ("content", "type", "priority", "metadata") if k in memory}
        values = {"memory": json.dumps(shown, ensure_ascii=False, indent=1),
                  "sources": format_messages(sources, limit=1500)}
        return [{"role": "system", "content": fill(t.system, values)},
                {"role": "user", "content": fill(t.user, values)}]

    def write_pending(self, path: str | Path) -> int:
        """Write the prompts that had no recorded verdict, one ``{"key", "messages"}`` line each;
        answered as ``{"key", "verdict"}`` lines they are replayed by ``--judge-verdicts``."""
        lines = [json.dumps({"key": k, "messages": m}, ensure_ascii=False) for k, m in sorted(self.pending.items())]
        try:
            Path(path).write_text("".join(line + "\n" for line in lines), "utf-8")
        except OSError as exc:
            raise MemvetError(f"cannot write: {exc.strerror or exc}", file=str(path)) from None
        return len(lines)

    def cost(self) -> dict[str, Any]:
        return {"calls": self.calls, "cached": self.hits, "errors": self.errors, **self.usage.to_dict()}


# --- the rules -------------------------------------------------------------------------

class JudgeOptions(RuleOptions):
    #: Types the judge always looks at (when the heuristics kept the memory).
    always: list[str] = ["work_method"]
    #: Other memories are judged when their priority is at most this.
    max_priority: int = 85
    #: The memory types on which a failed gate counts, as the gate rules judge them: the
    #: stripping and provenance tests (G001, G003) never judge a ``work_task``, and the
    #: one-time test (G002) never fails a task for carrying next steps -- which is what a
    #: "one_time: false" on a task says. A verdict on another type is shown, not acted on.
    gate_types: dict[str, list[str]] = {
        "stripping": ["work_fact", "work_artifact"],
        "one_time": ["work_fact", "work_method", "work_artifact"],
        "provenance": ["work_fact", "work_method", "work_artifact"],
    }


def _uncertain(memory: dict[str, Any], options: JudgeOptions) -> bool:
    priority = memory.get("priority")
    return memory.get("type") in options.always or (isinstance(priority, int) and priority <= options.max_priority)


class _JudgeRule(Rule):
    target = "memory"
    judge: ClassVar[Judge]
    Options = JudgeOptions

    def verdict(self, memory: dict[str, Any], ctx: Any) -> Verdict | str | None:
        """The verdict, an error text when the judge failed, or None when the memory is not judged."""
        if ctx.is_dropped(ctx.scene_index, ctx.memory_index):
            return None
        # A low-confidence finding lowered to a warning is exactly what the judge is for.
        low = getattr(ctx, "is_low", None)
        if not _uncertain(memory, self.options) and not (low is not None and low(ctx.path)):
            return None
        try:
            return self.judge.rule(memory, ctx.sources(memory))
        except EndpointError as exc:
            return str(exc)


class JudgeGates(_JudgeRule):
    """An LLM judge says the memory fails one of the three value gates.

    What it does:
        For memories the heuristic gates kept but that stay uncertain (every
        work_method, and memories of priority 85 or less), asks a model to
        rule on the stripping, one-time and provenance gates (G001-G003), and
        drops the memory when the model says one fails. Off unless the judge
        is enabled; verdicts are cached by content hash.

    Why is this bad?
        Word lists catch the common phrasings of change logs, snapshots and
        "see file X" pointers; a model catches the paraphrases they miss.

    Example:
        A memory "auth-service 的连接池配置说明写在 config/redis.yaml 的注释里。"
        that no word list flags; the judge rules that it fails the provenance gate.

    Use instead:
        Remember what the file does not say: why the pool is sized that way.
    """

    code = "JDG001"
    name = "llm-judge-gates"
    action = "drop"

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterator[Finding]:
        verdict = self.verdict(memory, ctx)
        if isinstance(verdict, str):
            yield Finding(f"LLM judge unavailable, memory not judged: {verdict}", action="warn")
        elif verdict is not None:
            kind, applies = memory.get("type"), self.options.gate_types
            failed = [GATES[key] for key in GATES
                      if getattr(verdict, key) is False and kind in applies.get(key, ())]
            if failed:
                yield Finding(f"LLM judge: fails the {', '.join(failed)} gate ({verdict.reason})")


class JudgeMethod(_JudgeRule):
    """An LLM judge says a work_method fails the method self-check.

    What it does:
        For a kept work_method, asks the model the five questions of the
        self-check (normative, transferable, directive, operable, supported)
        and, when it fails, says so. By default it only warns: on the tuned
        answer sets its downgrades touched 7 methods a reviewer keeps as
        they are for 2 it should change. With ``actions.JDG002 = "fix"``
        it downgrades the memory to work_fact and removes the method-only
        metadata (``scope``, ``method_type``), as M001 does. Fix: safe.

    Why is this bad?
        A narrated fix stored as a method is recalled as a rule for tasks it
        does not govern.

    Example:
        A work_method "本次把重试改成了指数退避，问题解决了。" phrased without the
        words the M rules look for.

    Use instead:
        A work_fact with the same content, or a real rule: "调用限流接口时应使用指数退避重试。"
    """

    code = "JDG002"
    name = "llm-judge-method"
    #: A warning by default (the verdict is shown, the method kept); ``actions.JDG002 = "fix"`` applies it.
    action = "warn"

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterator[Finding]:
        if memory.get("type") != "work_method":
            return
        verdict = self.verdict(memory, ctx)
        if isinstance(verdict, Verdict) and verdict.method is False:
            fix: list[dict[str, Any]] = [{"op": "replace", "path": "/type", "value": "work_fact"}]
            metadata = memory.get("metadata")
            if isinstance(metadata, dict) and any(k in metadata for k in METHOD_ONLY_KEYS):
                kept = {k: v for k, v in metadata.items() if k not in METHOD_ONLY_KEYS}
                fix.append({"op": "replace", "path": "/metadata", "value": kept})
            yield Finding(f"LLM judge: not a reusable method ({verdict.reason}); as a work_fact it would "
                          "not be recalled as a rule", path="/type", fix=fix)


class JudgePlugin:
    """A pluggy plugin object whose rules share one :class:`Judge`."""

    __name__ = "memvet-llm-judge"

    def __init__(self, judge: Judge):
        self.judge = judge
        self.rules = [type(cls.__name__, (cls,), {"judge": judge, "__module__": __name__, "__doc__": cls.__doc__})
                      for cls in (JudgeGates, JudgeMethod)]

    @hookimpl
    def memvet_rules(self) -> list[type[Rule]]:
        return list(self.rules)


def judge_engine(config: Any, judge: Judge) -> Any:
    """An engine with the built-in rules, installed plugins and the judge's rules."""
    from memvet.config import resolve_config
    from memvet.engine import Engine
    from memvet.registry import build_registry

    return Engine(resolve_config(config), registry=build_registry(plugins=(JudgePlugin(judge),)))
