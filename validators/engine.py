"""The engine: parse -> contract -> rules -> decide -> route -> write rules.

Rules yield findings relative to their target; everything else happens
here, once: absolute pointers, actions from config, fixes applied to a
copy-on-write working copy (the caller's value is never mutated), drops,
crash isolation (E001), records and the verdict.

Order inside the rules stage, per scene in document order: scene rules,
then each memory's rules, rules in family order (P first so that nothing
later echoes a secret). Output rules run after every scene, so they see the
fixed memories and know which ones were dropped. A fix is applied at once,
so later rules see the fixed value; ``ctx.original`` keeps what the LLM
said. Rules keep running on a dropped memory (one fault, one violation
each), but write rules see only kept records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, Callable, Iterable

from pydantic import ValidationError

from . import pointer as jp
from .config import DEFAULT as DEFAULT_CONFIG, Config, discover_config, resolve_config
from .config_check import (broken_plugin_violations, check_config_codes, check_plugins, did_you_mean,
                           table_prefix)
from .depth import MAX_ANSWER_DEPTH, pruned, too_deep
from .context import Batch, Message, load_context
from .errors import ConfigError, ContextError
from .locations import annotator
from .needs import TextLayer, declaration_met
from .options import expand_extends
from .parse import ParseResult, parse_output
from .registry import Registry, default_registry
from .report import Report, Violation
from .rule import MEMORY_TYPES, Action, Finding, Rule
from .secrets import BATCH_SECRETS, ContextLines, SecretSet, collect, iter_strings, placeholder

# Codes the engine itself emits (their classes live in memvet.rules.engine).
E001, E002 = "E001", "E002"
S004 = "S004"
FATAL_PARSE = ("S001", "S003")
# What a rule that found nothing may return instead of an empty generator: ``()`` or ``[]``.
_EMPTY = frozenset({tuple, list})
# Scene fields a record carries, in the report's key order.
_SCENE_FIELDS = ("scene_id", "new_scene_name", "new_scene_reason")
# Targets whose rules may declare the memory types they apply to (Rule.types).
TYPED_TARGETS = ("memory", "record")


def _memory_path(scene_index: int, memory_index: int) -> str:
    """``jp.join(i, "memories", j)`` for int indices (nothing to escape), on the hot path."""
    return f"/{scene_index}/memories/{memory_index}"


def _type_of(target: Any) -> str | None:
    kind = target.get("type") if isinstance(target, dict) else None
    return kind if isinstance(kind, str) else None


class _Bound:
    """A rule instance with its resolved action and identity, ready to run.

    ``check`` is the rule's bound ``check`` method, looked up once: the engine
    calls it ~700 times per typical answer. Assigning ``rule`` (as the
    benchmark's timing wrapper does) refreshes it.
    """

    __slots__ = ("_rule", "check", "code", "name", "action", "configured", "origin", "types", "pos", "needs")

    def __init__(self, rule: Rule, code: str, name: str, action: Action, configured: bool, origin: str,
                 types: frozenset[str] | None = None, pos: int = 0):
        self.rule = rule
        self.code = code
        self.name = name
        self.action = action
        self.configured = configured  # the action comes from config (beats a finding's own)
        self.origin = origin
        #: The memory types the rule applies to (``Rule.types``); None: every type.
        self.types = types
        #: Position in its target's list (where to resume when a fix changes a record's type).
        self.pos = pos

    @property
    def rule(self) -> Rule:
        return self._rule

    @rule.setter
    def rule(self, rule: Rule) -> None:
        self._rule = rule
        self.check = rule.check
        #: The rule's declaration (memvet.needs.Needs): when check() can find anything at all.
        self.needs = getattr(rule, "needs", None)

    def __repr__(self) -> str:
        return f"_Bound({self.code}, action={self.action!r})"


class RuleContext:
    """What a rule sees besides its target. One per ``validate()`` call.

    ``batch``: the context with its indices; ``config``; ``output``: the
    working output (fixes applied so far); ``scene`` / ``scene_index`` and
    ``memory_index`` for the current target; ``original``: the current
    target as the LLM emitted it; ``path``: the current target's pointer.
    ``secrets``: text a privacy rule redacted, mapped to its placeholder;
    the engine scrubs it from every message of the report.
    """

    __slots__ = ("batch", "config", "output", "scene", "scene_index", "memory_index",
                 "original", "path", "secrets", "store", "dropped", "parse",
                 "valid_scenes", "valid_memories", "_sources", "record", "record_index", "scratch")

    def __init__(self, batch: Batch, config: Config, store: Any = None):
        self.batch = batch
        self.config = config
        self.store = store
        self.output: list[Any] = []
        self.scene: dict[str, Any] | None = None
        self.scene_index: int | None = None
        self.memory_index: int | None = None
        self.original: Any = None
        self.path = ""
        self.secrets: dict[str, str] = {}
        self.dropped: dict[str, list[str]] = {}
        self.parse: ParseResult | None = None
        self.valid_scenes: list[int] = []
        self.valid_memories: list[tuple[int, int]] = []
        self._sources: dict[int, tuple[Any, list[Message], str | None]] = {}
        self.record: dict[str, Any] | None = None
        self.record_index = 0
        #: Per-call cache rules may share (e.g. one text analysis per memory,
        #: keyed by the content string). Dies with the call: no cross-call caching.
        self.scratch: dict[Any, Any] = {}

    # --- helpers rules share -------------------------------------------------
    def sources(self, memory: dict[str, Any]) -> list[Message]:
        """The new messages a memory cites, resolved within one session."""
        return self.resolve_sources(memory)[0]

    def resolve_sources(self, memory: dict[str, Any]) -> tuple[list[Message], str | None]:
        ids = memory.get("source_message_ids") or []
        hit = self._sources.get(id(ids))
        if hit is None or hit[0] is not ids:
            messages, session = self.batch.resolve([i for i in ids if isinstance(i, str)])
            hit = self._sources[id(ids)] = (ids, messages, session)
        return hit[1], hit[2]

    def is_dropped(self, scene_index: int, memory_index: int) -> bool:
        return _memory_path(scene_index, memory_index) in self.dropped

    def memo(self, key: str, compute: Callable[[], Any]) -> Any:
        """Cache a batch-level value (dominant language, lexicon index...) on the batch."""
        memo = self.batch.memo
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    def memories(self) -> Iterable[tuple[int, int, dict[str, Any]]]:
        """Every well-formed memory of the working output: ``(scene, index, memory)``."""
        for i, j in self.valid_memories:
            yield i, j, self.output[i]["memories"][j]


# Why a finding whose action is ``fix`` carries no RFC 6902 patch (parse-stage
# rules say it in their own message: they change the raw text, not the JSON).
NO_PATCH_HELD = " (no patch: a reject holds this memory back, so there is no record to patch)"
NO_PATCH_NONE = " (no patch: the rule has no automatic fix for this; nothing was changed)"


@dataclass
class _Run:
    """Mutable state of one validate() call."""

    ctx: RuleContext
    violations: list[Violation] = field(default_factory=list)
    rejected: set[str] = field(default_factory=set)
    removed_scenes: set[int] = field(default_factory=set)
    copied: set[Any] = field(default_factory=set)
    used_ignores: set[str] = field(default_factory=set)
    raw: Any = None  # the answer as given (text, bytes or a parsed value)
    too_deep: bool = False  # the answer nests deeper than MAX_ANSWER_DEPTH somewhere


class Engine:
    """Rules selected and configured once; ``validate()`` many times."""

    def __init__(self, config: Config | None = None, registry: Registry | None = None):
        self.config = config = config or Config()
        self.registry = registry or default_registry()
        self._check_config_codes()
        self.by_target: dict[str, list[_Bound]] = {"parse": [], "output": [], "scene": [], "memory": [], "record": []}
        self.suppressed: dict[str, list[_Bound]] = {k: [] for k in self.by_target}
        self.engine_rules: dict[str, _Bound] = {}
        for cls in self.registry.ordered():
            bound = self._bind(cls)
            if getattr(cls, "engine_only", False):
                self.engine_rules[cls.code] = bound
            elif config.enabled(cls.code):
                self.by_target[cls.target].append(bound)
            elif config.show_unused_ignores:
                self.suppressed[cls.target].append(bound)
        # Memory and record rules that declare ``types`` are dispatched from a
        # per-type list, so a method-only rule is never called on a fact.
        self.by_type: dict[str, dict[str | None, list[_Bound]]] = {}
        for target in TYPED_TARGETS:
            bounds = self.by_target[target]
            for pos, bound in enumerate(bounds):
                bound.pos = pos
            self.by_type[target] = {kind: [b for b in bounds if b.types is None or kind in b.types]
                                    for kind in (*MEMORY_TYPES, None)}
        # Every word list of every enabled rule, in one automaton (the declarations' word hits).
        self.text_layer = TextLayer([b.rule for bounds in self.by_target.values() for b in bounds])

    # --- setup ---------------------------------------------------------------
    def _check_config_codes(self) -> None:
        check_config_codes(self.config, self.registry.rules)
        check_plugins(self.config, self.registry)

    def _bind(self, cls: type[Rule]) -> _Bound:
        raw = expand_extends(cls.Options, self.config.rules.get(cls.code, {}), file=self.config.source,
                             field=f"{table_prefix(self.config.source)}rules.{cls.code}")
        try:
            options = cls.Options.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"])
            msg = err["msg"]
            if err["type"] == "extra_forbidden":
                msg = "unknown option" + did_you_mean(loc, cls.Options.model_fields, codes=False) + (
                    f" (options: {', '.join(cls.Options.model_fields)})" if cls.Options.model_fields else " (none)")
            raise ConfigError(msg, file=self.config.source,
                              field=f"{table_prefix(self.config.source)}rules.{cls.code}" + (f".{loc}" if loc else "")) from None
        configured = cls.code in self.config.actions
        action = self.config.actions.get(cls.code, cls.action)
        types = getattr(cls, "types", None)
        return _Bound(cls(options), cls.code, cls.name, action, configured, cls.origin(),
                      None if types is None else frozenset(types))

    # --- the run -------------------------------------------------------------
    def validate(self, output: Any, context: Any, *, store: Any = None) -> Report:
        try:
            batch = load_context(context)  # a bad context is the caller's error: it raises
        except ContextError as exc:
            raise self._scrubbed_error(exc) from None
        run = _Run(RuleContext(batch, self.config, store))
        try:
            return self._validate(run, output)
        except Exception as exc:  # last line of defence: an answer never makes validate() raise
            return self._engine_failure(run, exc)

    def _engine_failure(self, run: _Run, exc: Exception) -> Report:
        """Fail closed: everything found so far, plus one E001 reject at the root."""
        e = self.engine_rules.get(E001)
        # Scrubbed before it is cut, so no secret is left half-visible at the edge.
        detail = SecretSet(run.ctx.secrets).describe(str(exc)[:4000])[:200]
        run.violations.append(Violation(
            E001, e.name if e else "rule-crashed", "reject", "",
            f"the engine failed on this answer ({type(exc).__name__}: {detail}); nothing of it may be committed",
            "memvet.engine", None))
        run.violations.extend(broken_plugin_violations(self.registry, e.name if e else "rule-crashed"))
        _scrub(run.violations, SecretSet(run.ctx.secrets))
        stats = {"scenes": 0, "memories": 0, "records": 0, "dropped": 0,
                 "fixed": sum(1 for v in run.violations if v.action == "fix"),
                 "rejected": sum(1 for v in run.violations if v.action == "reject")}
        return Report(ok=False, violations=run.violations, records=[], dropped=[], output=None, stats=stats,
                      secrets=dict(run.ctx.secrets), annotator=annotator(run.raw, run.ctx.parse))

    def _validate(self, run: _Run, output: Any) -> Report:
        ctx = run.ctx
        run.raw = output  # for the violations' line and column (memvet.locations), resolved lazily
        parsed = parse_output(output)
        ctx.parse = parsed
        self._collect_secrets(ctx, output, parsed)
        self._run_target(run, "parse", parsed, "")
        fatal = any(v.code in FATAL_PARSE for v in run.violations) or not parsed.ok
        if fatal:
            return self._finish(run, None, [], [])
        value = parsed.value
        if not isinstance(value, list):
            return self._finish(run, value, [], [])
        schema_paths = [v.path for v in run.violations if v.code == S004]
        s004_ran = any(b.code == S004 for b in self.by_target["parse"]) and not any(
            v.code == E001 and v.message.startswith(f"rule {S004} ") for v in run.violations)
        if not s004_ran:
            # S004 switched off or crashed: still keep malformed parts away from
            # the rules; if even that fails, no scene is trusted (fail closed).
            from .contract import schema_errors
            try:
                schema_paths = [p for p, _ in schema_errors(value)]
            except Exception:
                schema_paths = [""]
        if schema_paths:
            # A value nested too deeply (S004, or under another schema error)
            # keeps its whole scene from the rules: scene rules walk every memory.
            deep = list(too_deep(value, MAX_ANSWER_DEPTH))
            run.too_deep = bool(deep)
            schema_paths = schema_paths + deep
        ctx.output = list(value)  # shallow: scenes are copied on first write
        self._mark_valid(ctx, value, schema_paths)
        valid_memories = set(ctx.valid_memories)
        for i in ctx.valid_scenes:
            ctx.scene_index, ctx.memory_index = i, None
            ctx.scene = ctx.output[i]
            ctx.original = value[i]
            self._run_target(run, "scene", ctx.output[i], f"/{i}")
            originals = value[i]["memories"]
            for j in range(len(originals)):
                if (i, j) not in valid_memories:
                    continue
                ctx.memory_index = j
                ctx.scene = ctx.output[i]
                ctx.original = originals[j]
                self._run_target(run, "memory", None, _memory_path(i, j))
        ctx.scene = ctx.scene_index = ctx.memory_index = None
        ctx.original = value
        self._run_target(run, "output", ctx.output, "")
        records, paths = self._records(run, value)
        return self._finish(run, value, records, paths)

    def _secret_finders(self) -> list[tuple[str, Callable[[str], list[tuple[str, str]]]]]:
        return [(b.code, b.rule.find_secrets) for b in self.by_target["scene"] + self.by_target["memory"]
                if callable(getattr(b.rule, "find_secrets", None))]

    def redact_text(self, text: str) -> str:
        """``text`` with what the privacy rules find in it replaced by placeholders (free text
        that reaches the store outside an answer: a hand-written memory, a reason)."""
        found = collect(self._secret_finders(), [text], placeholder)
        secrets = SecretSet()
        for each in found.values():
            secrets.update(each.placeholders)
        return secrets.scrub(text)

    def _scrubbed_error(self, exc: ContextError) -> ContextError:
        """``exc`` with what privacy rules find in its text redacted (a key of the context may be a token)."""
        parts = [p for p in (exc.detail, exc.field, exc.file) if p]
        parts += (exc.field or "").replace(".", "/").split("/")  # each key of the field on its own
        found = collect(self._secret_finders(), parts, placeholder)
        if not found:
            return exc
        secrets = SecretSet()
        for each in found.values():
            secrets.update(each.placeholders)
        return ContextError(secrets.scrub(exc.detail), file=exc.file and secrets.scrub(exc.file),
                            field=exc.field and secrets.scrub(exc.field))

    def _collect_secrets(self, ctx: RuleContext, output: Any, parsed: ParseResult) -> None:
        """What privacy rules find in ANY string of the answer or the context, before a rule runs.

        Registered in ``ctx.secrets`` (so every channel of the report is
        scrubbed of it) and per rule code in ``ctx.scratch`` (so P001/P002
        redact it wherever it occurs, even where no detector would see it).
        """
        finders = self._secret_finders()
        if not finders:
            return
        raw = output.decode("utf-8", "replace") if isinstance(output, (bytes, bytearray)) else output
        if parsed.value is not None:
            strings = list(iter_strings(parsed.value))
            if parsed.unwrapped and isinstance(raw, str):
                strings.append(raw)  # the prose or fence around the JSON too
        else:  # unparsable: the raw text is all there is
            strings = [raw] if isinstance(raw, str) else list(iter_strings(raw))
        answer = collect(finders, strings, placeholder)
        # The context: every string but the message texts whole; of those, the lines
        # that share a word with the answer (a value found nowhere in the answer can
        # reach no report, record or message; the engine copies only session keys).
        lines = ctx.memo("memvet.secrets.context-lines", lambda: ContextLines(ctx.batch))
        context = collect(finders, lines.relevant(strings), placeholder)
        by_code: dict[str, SecretSet] = {}
        for found in (context, answer):
            for code, secrets in found.items():
                by_code.setdefault(code, SecretSet()).update(secrets.placeholders)
        for secrets in by_code.values():
            for secret, shown in secrets.placeholders.items():
                ctx.secrets.setdefault(secret, shown)
        if by_code:
            ctx.scratch[BATCH_SECRETS] = by_code

    def _mark_valid(self, ctx: RuleContext, value: list[Any], schema_paths: list[str]) -> None:
        """Scenes and memories the schema did not fault; only they reach the rules."""
        if not schema_paths:
            ctx.valid_scenes = list(range(len(value)))
            ctx.valid_memories = [(i, j) for i, scene in enumerate(value) for j in range(len(scene["memories"]))]
            return
        bad_scenes: set[int] = set()
        bad_memories: set[tuple[int, int]] = set()
        for p in schema_paths:
            tokens = _split(p)
            if not tokens:
                bad_scenes.update(range(len(value)))
                continue
            i = int(tokens[0])
            if len(tokens) >= MAX_ANSWER_DEPTH:
                bad_scenes.add(i)  # nested too deeply: scene rules walk every memory of the scene
            elif len(tokens) >= 3 and tokens[1] == "memories" and tokens[2].isdigit():
                bad_memories.add((i, int(tokens[2])))
            else:
                bad_scenes.add(i)
        for i, scene in enumerate(value):
            if i in bad_scenes:
                continue
            ctx.valid_scenes.append(i)
            for j in range(len(scene["memories"])):
                if (i, j) not in bad_memories:
                    ctx.valid_memories.append((i, j))

    def _current_target(self, ctx: RuleContext, target: str, given: Any) -> Any:
        if target == "memory":
            return ctx.output[ctx.scene_index]["memories"][ctx.memory_index]
        if target == "scene":
            return ctx.output[ctx.scene_index]
        return given

    def _run_target(self, run: _Run, target: str, obj: Any, base: str) -> None:
        ctx = run.ctx
        ctx.path = base
        if target == "memory":
            current = ctx.output[ctx.scene_index]["memories"][ctx.memory_index]
            # The type as the LLM emitted it (constant for the run, so a method
            # downgraded by M001 still meets M002-M005).
            kind = ctx.original.get("type") if isinstance(ctx.original, dict) else None
            by_type = self.by_type[target]
            bounds = (by_type.get(kind) if isinstance(kind, str) else None) or by_type[None]
        elif target == "record":
            current = obj
            kind = _type_of(current)  # the record's own type; a fix may change it
            by_type = self.by_type[target]
            bounds = by_type.get(kind) or by_type[None]
        else:
            current = ctx.output[ctx.scene_index] if target == "scene" else obj
            kind = None
            bounds = self.by_target[target]
        while bounds:
            restart = None
            for bound in bounds:
                if bound.needs is not None and not declaration_met(bound.rule, bound.needs, current,
                                                                   self.text_layer, ctx):
                    continue  # the rule's declaration says check() cannot find anything here
                # The hot loop: most calls find nothing, and a rule may then return
                # an empty tuple instead of a generator (nothing to build, no list()).
                try:
                    findings = bound.check(current, ctx)
                    if not findings:
                        if findings.__class__ not in _EMPTY:
                            list(findings)  # None and other non-iterables crash as before (E001)
                        continue
                    findings = list(findings)
                except Exception as exc:  # isolate: a crashing rule never stops the run
                    self._crash(run, bound, base, exc)
                    continue
                if not findings:
                    continue
                for finding in findings:
                    self._handle(run, bound, target, base, finding)
                # A fix may have replaced the target (copy-on-write) or changed a record's type.
                if target == "memory":
                    current = ctx.output[ctx.scene_index]["memories"][ctx.memory_index]
                elif target == "scene":
                    current = ctx.output[ctx.scene_index]
                elif target == "record" and _type_of(current) != kind:
                    kind = _type_of(current)
                    restart = [b for b in self.by_target[target][bound.pos + 1:] if b.types is None or kind in b.types]
                    break
            bounds = restart
        if self.config.show_unused_ignores:
            self._probe_suppressed(run, target, obj)

    def _probe_suppressed(self, run: _Run, target: str, obj: Any) -> None:
        """Run the switched-off rules of ``target`` only to learn which ignore entries matched something."""
        ctx = run.ctx
        for bound in self.suppressed[target]:
            try:
                hit = any(True for _ in bound.rule.check(self._current_target(ctx, target, obj), ctx))
            except Exception:
                hit = False
            if hit:
                run.used_ignores.update(p for p in self.config.ignore
                                        if bound.code.startswith("" if p == "ALL" else p))

    def _crash(self, run: _Run, bound: _Bound, path: str, exc: Exception) -> None:
        e = self.engine_rules.get(E001)
        default = "reject" if self.config.fail_closed else "warn"
        action = e.action if e and e.configured else default
        run.violations.append(Violation(
            E001, e.name if e else "rule-crashed", action, path,
            f"rule {bound.code} ({bound.name}) crashed: {type(exc).__name__}: {exc}",
            bound.origin, None))
        if action == "reject":
            run.rejected.add(path)
        elif action == "drop":
            self._drop(run, path, E001)

    def _handle(self, run: _Run, bound: _Bound, target: str, base: str, finding: Finding) -> None:
        ctx = run.ctx
        action = bound.action if bound.configured else (finding.action or bound.action)
        path = base + finding.path
        fix = None
        if action == "fix" and finding.fix is not None:
            # Record fixes patch the report's records, not the output; a record
            # held back by a reject has no place in ``records`` to patch.
            if target != "record":
                fix = [_absolute(op, base) for op in finding.fix]
            elif ctx.record_index is not None:
                fix = [_absolute(op, jp.join("records", ctx.record_index)) for op in finding.fix]
            if finding.fix:
                try:
                    self._apply(run, target, base, finding.fix)
                except Exception as exc:
                    self._crash(run, bound, path, exc)
                    return
        message = finding.message
        if action == "fix" and fix is None and target != "parse":  # a fix says why it carries no patch
            message += NO_PATCH_HELD if finding.fix else NO_PATCH_NONE
        run.violations.append(Violation(bound.code, bound.name, action, path, message, bound.origin, fix))
        if action == "reject":
            run.rejected.add(base if target == "record" else path)
        elif action == "drop":
            self._drop(run, base if target == "record" else path, bound.code)

    def _drop(self, run: _Run, path: str, code: str) -> None:
        ctx = run.ctx
        tokens = _split(path)
        if len(tokens) >= 3 and tokens[1] == "memories":
            targets = [jp.join(tokens[0], "memories", tokens[2])]
        elif tokens:
            i = int(tokens[0])
            targets = [jp.join(i, "memories", j) for (si, j) in ctx.valid_memories if si == i]
        else:
            targets = [jp.join(i, "memories", j) for (i, j) in ctx.valid_memories]
        for t in targets:
            codes = ctx.dropped.setdefault(t, [])
            if code not in codes:
                codes.append(code)

    # --- fixes on a copy-on-write working output ------------------------------
    def _apply(self, run: _Run, target: str, base: str, ops: list[dict[str, Any]]) -> None:
        ctx = run.ctx
        if target == "record":
            jp.apply(ctx.record, ops)
            return
        if target in ("parse", "output"):
            # Whole-output fixes: copy everything once, then patch absolute paths.
            if "all" not in run.copied:
                ctx.output[:] = _clone(ctx.output)
                run.copied.add("all")
                run.copied.update(("scene", i) for i in range(len(ctx.output)))
            jp.apply(ctx.output, ops)
            return
        i = ctx.scene_index
        if ("scene", i) not in run.copied:
            scene = ctx.output[i]
            ctx.output[i] = {**scene, "memories": list(scene["memories"])}
            run.copied.add(("scene", i))
        scene = ctx.output[i]
        if target == "memory":
            j = ctx.memory_index
            if ("memory", i, j) not in run.copied:
                scene["memories"][j] = _clone(scene["memories"][j])
                run.copied.add(("memory", i, j))
            obj = scene["memories"][j]
        else:
            obj = scene
        for op in ops:
            if op["op"] == "remove" and op["path"] == "":
                if target == "scene":
                    run.removed_scenes.add(i)
                else:
                    self._drop(run, base, "")
                continue
            tokens = _split(op["path"])
            if target == "scene" and tokens[:1] == ["memories"] and len(tokens) > 1 and tokens[1].isdigit():
                j = int(tokens[1])
                if ("memory", i, j) not in run.copied:
                    scene["memories"][j] = _clone(scene["memories"][j])
                    run.copied.add(("memory", i, j))
            elif (target == "scene" and len(tokens) > 1 and tokens[0] in obj
                  and (id(obj), tokens[0]) not in run.copied):
                # A memory is cloned whole on its first fix; a scene only shallowly.
                obj[tokens[0]] = _clone(obj[tokens[0]])
                run.copied.add((id(obj), tokens[0]))
            if not _patch_in_place(obj, op, tokens):
                jp.apply(obj, [op])

    # --- decide ----------------------------------------------------------------
    def _records(self, run: _Run, value: list[Any]) -> tuple[list[dict[str, Any]], list[str]]:
        from .routing import route_all

        ctx = run.ctx
        rejected = run.rejected
        if "" in rejected:
            return [], []
        rejected_scenes, rejected_memories = _rejected_parts(rejected)
        dropped, removed, output, resolve = ctx.dropped, run.removed_scenes, ctx.output, ctx.resolve_sources
        cached_sources = ctx._sources
        prefixes: dict[int, dict[str, Any]] = {}  # the scene fields every record of a scene starts with
        routed: list[tuple[dict[str, Any], list[Message]]] = []
        paths: list[str] = []
        held_flags: list[bool] = []
        for i, j in ctx.valid_memories:
            mem_path = _memory_path(i, j)
            if mem_path in dropped or i in removed:
                continue
            # A rejected memory is routed and write-checked too, so one report
            # names every fault, but it never becomes a record.
            held = False
            if rejected_scenes or rejected_memories:
                si = str(i)
                held = si in rejected_scenes or (si, str(j)) in rejected_memories
            scene = output[i]
            prefix = prefixes.get(i)
            if prefix is None:
                prefix = prefixes[i] = {k: scene[k] for k in _SCENE_FIELDS if k in scene}
            memory = scene["memories"][j]
            record = {**prefix, **memory}
            for k, v in memory.items():  # a JSON copy: record fixes must not reach the output
                if isinstance(v, (dict, list)):
                    record[k] = _clone(v)
            messages, session = resolve(memory)
            ids = record.get("source_message_ids")
            if isinstance(ids, list):  # same ids, same answer: spare W rules a second lookup
                cached_sources[id(ids)] = (ids, messages, session)
            record["sessionKey"] = session
            routed.append((record, messages))
            paths.append(mem_path)
            held_flags.append(held)
        route_all(routed, ctx)
        kept_records, kept_paths = [], []
        violations = run.violations
        for (record, _), path, held in zip(routed, paths, held_flags):
            ctx.record = record
            # None: no record will exist to patch, so write fixes are reported without ops.
            ctx.record_index = None if held else len(kept_records)
            before = len(violations)
            self._run_target(run, "record", record, path)
            ctx.record = None
            if held:
                continue
            if len(violations) > before:
                faults = {v.action for v in violations[before:]}
                if "reject" in faults or "drop" in faults:
                    continue
            kept_records.append(record)
            kept_paths.append(path)
        return kept_records, kept_paths

    def _finish(self, run: _Run, value: Any, records: list[dict[str, Any]], paths: list[str]) -> Report:
        ctx = run.ctx
        if self.config.show_unused_ignores:
            e = self.engine_rules.get(E002)
            for prefix in self.config.ignore:
                if prefix not in run.used_ignores:
                    run.violations.append(Violation(
                        E002, e.name if e else "unused-suppression", e.action if e else "warn", "",
                        f"ignore entry {prefix!r} matched nothing in this run", e.origin if e else "memvet", None))
        if self.registry.problems:  # only with allow_broken_plugins = true: say what did not run
            e = self.engine_rules.get(E001)
            run.violations.extend(broken_plugin_violations(self.registry, e.name if e else "rule-crashed"))
        secrets = SecretSet(ctx.secrets)
        if secrets:
            _scrub(run.violations, secrets)
        output = self._final_output(run, value)
        if run.too_deep:
            # Nested too deeply (S004 at that pointer): the report carries the
            # answer cut at the bound, so every formatter can still write it.
            output, value = pruned(output, MAX_ANSWER_DEPTH), pruned(value, MAX_ANSWER_DEPTH)
        if secrets:
            # The last line: whatever a rule left (an id, a session key, a key
            # no rule rewrote) never reaches a record, the store or the output.
            records = [secrets.scrub_value(r) for r in records]
            output = secrets.scrub_value(output)
        memories = sum(len(s.get("memories") or []) for s in value if isinstance(s, dict)
                       and isinstance(s.get("memories"), list)) if isinstance(value, list) else 0
        ok = not any(v.action == "reject" for v in run.violations)
        dropped = [{"path": p, "codes": codes} for p, codes in sorted(ctx.dropped.items(), key=lambda kv: _order(kv[0]))
                   if codes]
        stats = {
            "scenes": len(value) if isinstance(value, list) else 0,
            "memories": memories,
            "records": len(records),
            "dropped": len(dropped),
            "fixed": sum(1 for v in run.violations if v.action == "fix"),
            "rejected": sum(1 for v in run.violations if v.action == "reject"),
        }
        return Report(ok=ok, violations=run.violations, records=records, dropped=dropped, output=output,
                      stats=stats, original=value, record_paths=paths, secrets=dict(ctx.secrets),
                      annotator=annotator(run.raw, ctx.parse) if run.violations else None)

    def _final_output(self, run: _Run, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        ctx = run.ctx
        out = []
        for i, scene in enumerate(ctx.output):
            if i in run.removed_scenes:
                continue
            if i not in ctx.valid_scenes or not isinstance(scene, dict):
                out.append(scene)
                continue
            memories = [m for j, m in enumerate(scene["memories"])
                        if _memory_path(i, j) not in ctx.dropped]
            if not memories and scene["memories"]:
                continue  # every memory dropped: the scene goes too
            out.append(scene if len(memories) == len(scene["memories"]) else {**scene, "memories": memories})
        return out


def _split(pointer: str) -> list[str]:
    """``jp.split`` with a fast path: a pointer without ``~`` has nothing to unescape."""
    if "~" in pointer or not pointer.startswith("/"):
        return jp.split(pointer)
    return pointer[1:].split("/")


def _patch_in_place(obj: Any, op: dict[str, Any], tokens: list[str]) -> bool:
    """Apply the common fix ops (add/replace/remove of an existing dict key, under dicts only)
    directly; False when ``jp.apply`` must do it (lists, missing keys, move/copy/test: its errors
    are what E001 reports)."""
    kind = op["op"]
    if kind not in ("add", "replace", "remove") or not tokens:
        return False
    node = obj
    for token in tokens[:-1]:
        if node.__class__ is not dict or token not in node:
            return False
        node = node[token]
    key = tokens[-1]
    if node.__class__ is not dict:
        return False
    if kind == "add":
        node[key] = op["value"]
    elif key not in node:
        return False
    elif kind == "remove":
        del node[key]
    else:
        node[key] = op["value"]
    return True


def _clone(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, scalars): several times faster than ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {k: _clone(v) if isinstance(v, (dict, list)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [_clone(v) if isinstance(v, (dict, list)) else v for v in value]
    return value


def _rejected_parts(rejected: set[str]) -> tuple[set[str], set[tuple[str, str]]]:
    """Split rejected pointers into scene tokens (the scene itself or any non-memory part
    of it) and ``(scene, memory)`` tokens (a memory or anything inside it)."""
    scenes: set[str] = set()
    memories: set[tuple[str, str]] = set()
    for pointer in rejected:
        if not pointer.startswith("/"):
            continue
        tokens = _split(pointer)
        if len(tokens) >= 3 and tokens[1] == "memories":
            memories.add((tokens[0], tokens[2]))
        else:
            scenes.add(tokens[0])
    return scenes, memories


def _absolute(op: dict[str, Any], base: str) -> dict[str, Any]:
    out = {**op, "path": base + op["path"]}
    if "from" in op:
        out["from"] = base + op["from"]
    return out


def _order(pointer: str) -> tuple[Any, ...]:
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in _split(pointer))


def _scrub(violations: list[Violation], secrets: SecretSet) -> None:
    """Every message, pointer and fix op (values and keys at any depth) without a secret.

    A message describes the secret by kind and length; pointers and fixes
    carry the placeholder the records and the output carry.
    """
    for v in violations:
        v.message = secrets.describe(v.message)
        v.path = _scrub_pointer(v.path, secrets)
        if v.fix:
            v.fix = secrets.scrub_value(v.fix)
            for op in v.fix:
                for key in ("path", "from"):
                    if isinstance(op.get(key), str):
                        op[key] = _scrub_pointer(op[key], secrets)


def _scrub_pointer(pointer: str, secrets: SecretSet) -> str:
    """A JSON Pointer whose tokens hold no secret: a key with a "/" is "~1" in the pointer."""
    if not pointer.startswith("/") or ("~" not in pointer and not secrets.holds(pointer)):
        return pointer
    return jp.from_path([secrets.scrub(token) for token in jp.split(pointer)])


@cache
def _default_engine() -> Engine:
    return Engine(Config())


_engines: dict[int, Engine] = {}


def engine_for(config: Any) -> Engine:
    """An Engine for ``config`` (None: discovered from the working directory, like the CLI;
    a Config, dict or path), reused per Config object."""
    cfg = discover_config() if config is None else resolve_config(config)
    if cfg is DEFAULT_CONFIG:
        return _default_engine()
    key = id(cfg)
    eng = _engines.get(key)
    if eng is None or eng.config is not cfg:
        eng = Engine(cfg)
        if len(_engines) > 32:
            _engines.clear()
        _engines[key] = eng
    return eng


def validate(output: Any, context: Any, *, config: Any = None, store: Any = None) -> Report:
    """Check one LLM extraction answer against its batch context.

    ``output``: raw text, bytes or an already parsed value -- never raises
    for it. ``context``: a dict, :class:`~memvet.context.BatchContext`, JSON
    text or a path -- raises :class:`~memvet.ContextError` when malformed.
    ``config``: None -- the ``memvet.toml`` or ``[tool.memvet]`` found upward
    from the working directory, exactly as ``memvet check`` finds it (the
    defaults when there is none); a :class:`~memvet.Config`; a dict shaped
    like ``[tool.memvet]`` (``{}``: the defaults, whatever the directory); or
    a path -- raises :class:`~memvet.ConfigError` (also for a plugin that
    failed to load, unless ``allow_broken_plugins = true``).
    ``store``: an attached memory store, for the conflict check (W007).
    """
    return engine_for(config).validate(output, context, store=store)
