"""The extraction prompt: a template file plus the batch, rendered as chat messages.

The template is Markdown split by marker lines::

    <!-- memvet:system -->     the instructions (sent as the system message)
    <!-- memvet:user -->       the data block, with {{placeholders}}
    <!-- memvet:contract --> … <!-- /memvet:contract -->
                               inside the system part: the output contract,
                               reused verbatim by repair requests

Placeholders: ``{{scene_pool}}`` (``id | label`` lines), ``{{known_projects}}``,
``{{background}}`` and ``{{messages}}``. A template without markers is all
system text and gets the built-in data block. The built-in template is
``prompt-zh.md`` (package data); ``--prompt FILE`` swaps in a team's own.

Each message renders as::

    <message id="m41" sessionKey="s-7f2" role="user" time="2026-11-29T08:00:00Z">
    先把登录接口的返回改成 202，明天再回滚
    </message>

``time`` is the event time in ISO 8601 UTC, or ``unknown`` when
``timestamp`` is null or invalid -- never ``recordedAt``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable

from memvet.context import Batch, Message, iso_from_ms, load_context
from memvet.errors import ConfigError

EMPTY = "(无)"
UNKNOWN_TIME = "unknown"
PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
_MARKER = re.compile(r"^[ \t]*<!--\s*memvet:(\w+)\s*-->[ \t]*\n?", re.MULTILINE)
_CONTRACT = re.compile(r"<!--\s*memvet:contract\s*-->[ \t]*\n?(.*?)<!--\s*/memvet:contract\s*-->[ \t]*\n?", re.DOTALL)
_SECTIONS = ("system", "user", "reask")
EXTRACT_FIELDS = frozenset({"scene_pool", "known_projects", "background", "messages"})


@dataclass(frozen=True)
class PromptTemplate:
    """A parsed template: its sections and where it came from (for error messages)."""

    system: str
    user: str
    contract: str
    source: str
    reask: str = ""

    @classmethod
    def from_text(cls, text: str, *, source: str, fallback_user: str | None = None,
                  fields: frozenset[str] = EXTRACT_FIELDS) -> "PromptTemplate":
        sections: dict[str, str] = {}
        marks = list(_MARKER.finditer(text))
        if not marks:
            sections["system"] = text
        for k, mark in enumerate(marks):
            name = mark.group(1)
            if name not in _SECTIONS:
                if name == "contract":
                    continue  # handled by _CONTRACT below
                raise ConfigError(f"unknown section marker 'memvet:{name}' (known: {', '.join(_SECTIONS)})",
                                  file=source)
            end = next((m.start() for m in marks[k + 1:] if m.group(1) in _SECTIONS), len(text))
            sections[name] = text[mark.end():end]
        system = sections.get("system", "")
        contract_match = _CONTRACT.search(system)
        contract = contract_match.group(1).strip() if contract_match else ""
        system = _CONTRACT.sub(lambda m: m.group(1), system)
        user = sections.get("user") or fallback_user or ""
        template = cls(system.strip(), user.strip(), contract, source, sections.get("reask", "").strip())
        template._check(fields)
        return template

    def _check(self, fields: frozenset[str]) -> None:
        for part in (self.system, self.user):
            for match in PLACEHOLDER.finditer(part):
                if match.group(1) not in fields:
                    raise ConfigError(f"unknown placeholder {match.group(0)} (known: "
                                      f"{', '.join('{{' + f + '}}' for f in sorted(fields))})", file=self.source)
        if "messages" in fields and "{{messages}}" not in self.user.replace(" ", ""):
            raise ConfigError("the template never shows the new messages: put {{messages}} in its user part",
                              file=self.source)


def fill(text: str, values: dict[str, str]) -> str:
    """Replace ``{{name}}`` in one pass (message text that contains ``{{…}}`` is left alone)."""
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


@cache
def _package_text(name: str) -> str:
    return resources.files("memvet.extractor").joinpath(name).read_text("utf-8")


@cache
def default_template() -> PromptTemplate:
    return PromptTemplate.from_text(_package_text("prompt-zh.md"), source="memvet.extractor/prompt-zh.md")


def load_template(path: str | Path | None = None) -> PromptTemplate:
    """The built-in template, or a team's own file (``--prompt FILE``)."""
    if path is None:
        return default_template()
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read prompt template: {exc.strerror or exc}", file=str(path)) from None
    except UnicodeDecodeError:
        raise ConfigError("prompt template is not UTF-8 text", file=str(path)) from None
    template = PromptTemplate.from_text(text, source=str(path), fallback_user=default_template().user)
    if not template.contract:
        # A team prompt without a marked contract still gets a contract in repairs.
        template = PromptTemplate(template.system, template.user, default_template().contract, template.source)
    return template


# --- rendering the batch -----------------------------------------------------------

def message_time(message: Message) -> str:
    """ISO 8601 event time, or ``unknown`` (null, invalid or implausible timestamp)."""
    return iso_from_ms(message.event_ms) or UNKNOWN_TIME


def _attr(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def message_header(message: Message) -> str:
    return (f"id={_attr(message.id)} sessionKey={_attr(message.sessionKey)} "
            f"role={_attr(message.role)} time={_attr(message_time(message))}")


def format_message(message: Message, *, limit: int | None = None) -> str:
    content = message.content
    if limit is not None and len(content) > limit:
        content = content[:limit] + "…[节选]"
    # A message quoting our own closing tag must not end its block early.
    content = content.replace("</message>", "<\\/message>")
    return f"<message {message_header(message)}>\n{content}\n</message>"


def format_messages(messages: Iterable[Message], *, limit: int | None = None) -> str:
    text = "\n\n".join(format_message(m, limit=limit) for m in messages)
    return text or EMPTY


def format_pool(pool: dict[str, str]) -> str:
    return "\n".join(f"{sid} | {label}" for sid, label in pool.items()) or EMPTY


def format_projects(projects: Iterable[str]) -> str:
    return "\n".join(f"- {p}" for p in projects) or EMPTY


def batch_values(batch: Batch) -> dict[str, str]:
    return {
        "scene_pool": format_pool(batch.pool),
        "known_projects": format_projects(batch.known_projects),
        "background": format_messages(batch.background),
        "messages": format_messages(batch.messages),
    }


def render(context: Any, *, template: PromptTemplate | None = None,
           note: str | None = None) -> list[dict[str, str]]:
    """The chat messages for one batch: ``[{"role": "system", ...}, {"role": "user", ...}]``.

    ``context`` is anything :func:`memvet.load_context` accepts (a bad one
    raises ``ContextError``). ``note`` is appended to the user message (the
    extractor uses it to ask for the wrapped form in JSON mode, or to say why
    a whole answer is asked again).
    """
    template = template or default_template()
    batch = load_context(context)
    values = batch_values(batch)
    user = fill(template.user, values)
    if note:
        user = f"{user}\n\n{note}"
    messages = []
    if template.system:
        messages.append({"role": "system", "content": fill(template.system, values)})
    messages.append({"role": "user", "content": user})
    return messages


def estimate_tokens(text: str) -> int:
    """A cheap, conservative token estimate: UTF-8 bytes / 3 (one per CJK character)."""
    return len(text.encode("utf-8")) // 3 + 1


def messages_tokens(messages: list[dict[str, str]], counter: Callable[[str], int] = estimate_tokens) -> int:
    return sum(counter(m.get("content") or "") + 4 for m in messages)
