"""What the privacy rules' ``find_secrets`` see in a text, an error or a whole call, before any rule runs."""

from __future__ import annotations

from typing import Any, Callable

from .binding import RuleTable
from .errors import ContextError
from .parse import ParseResult
from .rule_context import RuleContext
from .secrets import BATCH_SECRETS, ContextLines, SecretSet, collect, iter_strings, placeholder


def secret_finders(table: RuleTable) -> list[tuple[str, Callable[[str], list[tuple[str, str]]]]]:
    return [(b.code, b.rule.find_secrets) for b in table.by_target["scene"] + table.by_target["memory"]
            if callable(getattr(b.rule, "find_secrets", None))]


def redact_text(table: RuleTable, text: str) -> str:
    """``text`` with what the privacy rules find in it replaced by placeholders."""
    found = collect(secret_finders(table), [text], placeholder)
    secrets = SecretSet()
    for each in found.values():
        secrets.update(each.placeholders)
    return secrets.scrub(text)


def scrubbed_error(table: RuleTable, exc: ContextError) -> ContextError:
    """``exc`` with what privacy rules find in its text redacted (a key of the context may be a token)."""
    parts = [p for p in (exc.detail, exc.field, exc.file) if p]
    parts += (exc.field or "").replace(".", "/").split("/")  # each key of the field on its own
    found = collect(secret_finders(table), parts, placeholder)
    if not found:
        return exc
    secrets = SecretSet()
    for each in found.values():
        secrets.update(each.placeholders)
    return ContextError(secrets.scrub(exc.detail), file=exc.file and secrets.scrub(exc.file),
                        field=exc.field and secrets.scrub(exc.field))


def collect_secrets(table: RuleTable, ctx: RuleContext, output: Any, parsed: ParseResult) -> None:
    """What privacy rules find in ANY string of the answer or the context, before a rule runs.

    Registered in ``ctx.secrets`` (so every channel of the report is
    scrubbed of it) and per rule code in ``ctx.scratch`` (so P001/P002
    redact it wherever it occurs, even where no detector would see it).
    """
    finders = secret_finders(table)
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
