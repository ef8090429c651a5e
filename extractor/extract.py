"""Extract, validate, repair: one batch from prompt to final report.

The loop is written once, as a generator that yields the next
:class:`~memvet.extractor.client.ChatRequest` and receives its
:class:`~memvet.extractor.client.Completion`; :func:`extract` drives it
with the synchronous client and :func:`extract_async` with the async one.
So the logic that decides what to ask, and when to stop, has no I/O in it.

1. ask for the batch; validate the answer with the engine;
2. while the report rejects: stop at ``max_repairs``, or when the tokens
   used so far plus the estimated size of the next request would pass
   ``token_budget``; else send a repair request (only the failing scenes)
   or, when nothing parsed, ask for the whole batch again; merge; validate.

The result keeps every attempt (raw answer, report, usage) and the last
report, even when repairs run out. A bad answer never raises; only the
endpoint failing (:class:`~memvet.extractor.client.EndpointError`) or a
malformed context (:class:`~memvet.ContextError`) does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, Generator

from memvet.context import load_context
from memvet.engine import Engine, engine_for
from memvet.parse import parse_output
from memvet.report import Report
from memvet.schemas.strict import WRAP_KEY, strict_output_schema
from memvet.secrets import SecretSet

from .client import AsyncChatClient, ChatClient, ChatRequest, Completion, Usage
from .prompt import PromptTemplate, default_template, messages_tokens, render
from .repair import merge, plan_repair

#: Added to every request; the client shows it only in the JSON modes
#: (json_object and strict mode need an object root, so the array is wrapped).
WRAP_NOTE = '输出格式：返回一个 JSON 对象 {"scenes": [...]}，其中 scenes 就是上面要求的情境数组。'

Steps = Generator[ChatRequest, Completion, "ExtractionResult"]


@cache
def output_schema() -> dict[str, Any]:
    return strict_output_schema()


@dataclass
class Attempt:
    """One call: what was asked (``extract`` / ``repair`` / ``reask``), what came back, what it gave."""

    kind: str
    raw: str
    report: Report
    usage: Usage
    finish_reason: str | None = None
    mode: str = "off"
    scenes: list[int] = field(default_factory=list)   # scenes sent for repair
    error: str | None = None                          # the repair answer could not be merged
    retries: int = 0

    def to_dict(self) -> dict[str, Any]:
        # The raw answer and the merge error without what privacy rules found in them.
        secrets = SecretSet(self.report.secrets)
        return {"kind": self.kind, "mode": self.mode, "finish_reason": self.finish_reason,
                "scenes": self.scenes, "error": secrets.scrub(self.error) if self.error else self.error,
                "retries": self.retries, "usage": self.usage.to_dict(), "raw": secrets.scrub(self.raw),
                "report": self.report.to_dict()}


@dataclass
class ExtractionResult:
    """The final report, the answer it judged, and every attempt on the way."""

    report: Report
    answer: Any
    attempts: list[Attempt]
    #: ``ok``; or why the loop stopped on a reject: ``max_repairs`` / ``token_budget``.
    stop: str

    @property
    def ok(self) -> bool:
        return self.report.ok

    @property
    def repairs(self) -> int:
        return len(self.attempts) - 1

    @property
    def usage(self) -> Usage:
        total = Usage()
        for a in self.attempts:
            total = total + a.usage
        return total

    def to_dict(self, *, attempts: bool = True) -> dict[str, Any]:
        secrets = SecretSet(self.report.secrets)
        for attempt in self.attempts:
            secrets.update(attempt.report.secrets)
        out: dict[str, Any] = {
            "ok": self.ok, "stop": self.stop, "repairs": self.repairs, "usage": self.usage.to_dict(),
            # The answer as the model wrote it, every secret found on the way replaced.
            "answer": secrets.scrub_value(self.report.original if self.report.original is not None else self.answer),
            "report": self.report.to_dict(),
        }
        if attempts:
            out["attempts"] = [a.to_dict() for a in self.attempts]
        return out


def strip_nulls(value: Any) -> Any:
    """Drop the ``null`` members strict mode forces on optional fields (the contract has no nulls)."""
    if isinstance(value, dict):
        return {k: strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_nulls(v) for v in value]
    return value


def decode(completion: Completion) -> Any:
    """The answer to validate: the unwrapped array in the JSON modes, else the raw text.

    Raw text goes to the engine as is, so S001/S002/S010 report truncation,
    fences and lenient repairs. A wrapped object is unwrapped here.
    """
    if completion.mode in ("json_schema", "json_object"):
        parsed = parse_output(completion.text)
        if parsed.ok and isinstance(parsed.value, dict) and isinstance(parsed.value.get(WRAP_KEY), list):
            return strip_nulls(parsed.value[WRAP_KEY])
    return completion.text


def extraction_steps(context: Any, *, engine: Engine | None = None, config: Any = None, store: Any = None,
                     template: PromptTemplate | None = None, max_repairs: int = 2,
                     token_budget: int = 60_000, excerpt_chars: int = 600) -> Steps:
    """The extract -> validate -> repair loop, as a generator of requests (no I/O)."""
    batch = load_context(context)
    engine = engine or engine_for(config)
    template = template or default_template()
    schema = output_schema()

    def check(answer: Any) -> Report:
        return engine.validate(answer, batch.model, store=store)

    request = ChatRequest(render(batch, template=template), schema, json_note=WRAP_NOTE)
    completion = yield request
    answer = decode(completion)
    report = check(answer)
    attempts = [Attempt("extract", completion.text, report, completion.usage, completion.finish_reason,
                        completion.mode, retries=completion.retries)]
    used = completion.usage.total_tokens
    truncated = completion.truncated
    stop = "ok"
    while not report.ok:
        if len(attempts) - 1 >= max_repairs:
            stop = "max_repairs"
            break
        plan = plan_repair(report, batch, template, truncated=truncated, excerpt_chars=excerpt_chars)
        if plan is None:  # pragma: no cover - a not-ok report always has a reject
            break
        if used + messages_tokens(plan.messages) > token_budget:
            stop = "token_budget"
            break
        request = ChatRequest(plan.messages, schema, json_note=WRAP_NOTE)
        completion = yield request
        used += completion.usage.total_tokens
        truncated = completion.truncated
        error = None
        if plan.kind == "reask":
            answer = decode(completion)
            report = check(answer)
        else:
            repaired = decode(completion)
            if isinstance(repaired, str):
                parsed = parse_output(repaired)
                repaired = parsed.value if parsed.ok else None
                if not parsed.ok:
                    error = f"the repair answer is not JSON: {parsed.error}"
            merged = None
            if error is None:
                merged, error = merge(report.original, plan.scenes, repaired)
            if merged is not None:
                answer = merged
                report = check(answer)
            # else: the answer and its report stay as they were; the attempt says why.
        attempts.append(Attempt(plan.kind, completion.text, report, completion.usage, completion.finish_reason,
                                completion.mode, plan.scenes, error, completion.retries))
    return ExtractionResult(report, answer, attempts, stop)


def extract(context: Any, client: ChatClient, **options: Any) -> ExtractionResult:
    """Run the loop with a synchronous client. ``options`` go to :func:`extraction_steps`."""
    steps = extraction_steps(context, **options)
    request = next(steps)
    while True:
        try:
            request = steps.send(client.complete(request))
        except StopIteration as done:
            return done.value


async def extract_async(context: Any, client: AsyncChatClient, **options: Any) -> ExtractionResult:
    """Run the loop with an async client (used by ``memvet run`` for concurrent sessions)."""
    steps = extraction_steps(context, **options)
    request = next(steps)
    while True:
        completion = await client.complete(request)
        try:
            request = steps.send(completion)
        except StopIteration as done:
            return done.value
