"""acme-memvet: an example third-party memvet plugin.

memvet finds it through the ``memvet`` entry point in ``pyproject.toml``
and calls :func:`memvet_rules`; the engine then runs the rule like a
built-in one (ordering after the built-in families, config, crash
isolation). Codes use the plugin's own prefix (``ACME``): built-in family
letters are refused at load time.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterator

from pydantic import field_validator

import memvet

__all__ = ["TicketInMethod", "memvet_rules"]

# A ticket key (PROJ-123) that is not a standard's name (UTF-8, ISO-8601,
# SHA-256...), or a Chinese ticket mention (工单 4521, 工单号#4521).
# No nested quantifiers: linear in the text.
DEFAULT_TICKET = (r"(?<![A-Za-z0-9])(?!(?:UTF|ISO|SHA|AES|RFC|HTTP|TLS|PEP|CVE|GB|IEEE)-)"
                  r"[A-Z][A-Z0-9]{1,9}-[0-9]+(?![0-9])|工单号?\s?#?[0-9]+")


@lru_cache(maxsize=16)
def _compiled(pattern: str) -> re.Pattern[str]:
    # Compiled once per distinct option value, not per memory.
    return re.compile(pattern)


class TicketInMethod(memvet.Rule):
    """A work_method that only holds for one ticket.

    What it does:
        Warns when the content of a ``work_method`` names a ticket -- a key
        such as ``JIRA-4521`` or a Chinese mention such as ``工单 4521``.
        The pattern is the ``ticket_pattern`` option. The type is the one the
        model proposed (``ctx.original``): memvet's own M002 may already
        have downgraded the memory to a fact, and ACME's prompt team wants
        to see every such proposal.

    Why is this bad?
        A method is meant to guide future work. One that hinges on a ticket
        describes what was done for that ticket; once it is closed the
        memory guides nothing, yet it is retrieved for every similar task.

    Example:
        user: 处理 JIRA-4521 时，先在预发环境复现再修
        ```json
        {"content": "处理 JIRA-4521 时应先在预发环境复现再修复。", "type": "work_method", "priority": 80}
        ```
        user: For ticket OPS-88 we must drain the node before patching.
        ```json
        {"content": "For OPS-88, drain the node before patching it.", "type": "work_method", "priority": 80}
        ```

    Use instead:
        user: 线上缺陷都先在预发环境复现再修
        ```json
        {"content": "修复线上缺陷前应先在预发环境复现。", "type": "work_method", "priority": 80}
        ```
        user: We must drain a node before patching it.
        ```json
        {"content": "Drain a node before patching it.", "type": "work_method", "priority": 80}
        ```
    """

    code = "ACME001"
    name = "ticket-in-method"
    target = "memory"
    action = "warn"

    class Options(memvet.RuleOptions):
        ticket_pattern: str = DEFAULT_TICKET

        @field_validator("ticket_pattern")
        @classmethod
        def _compiles(cls, value: str) -> str:
            # A bad pattern is a config error naming the option, not a crash at run time.
            try:
                _compiled(value)
            except re.error as exc:
                raise ValueError(f"not a regular expression: {exc}") from None
            return value

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterator[memvet.Finding]:
        if ctx.original.get("type") != "work_method":  # as proposed, before M002's downgrade
            return
        hit = _compiled(self.options.ticket_pattern).search(memory["content"])
        if hit:
            yield memvet.Finding(f"the method names a ticket ({hit.group(0)!r}); state the rule without it",
                                 path="/content")


@memvet.hookimpl
def memvet_rules() -> list[type[memvet.Rule]]:
    return [TicketInMethod]
