"""memvet-yourteam: one rule to start from. Replace it with yours.

memvet calls :func:`memvet_rules` (found through the ``memvet`` entry point
in ``pyproject.toml``) and runs each class like a built-in rule: config,
ordering, fixes and crash isolation are memvet's.
"""

from __future__ import annotations

from typing import Any, Iterator

import memvet

__all__ = ["PlaceholderInContent", "memvet_rules"]


class PlaceholderInContent(memvet.Rule):
    """A memory whose content still holds a placeholder.

    What it does:
        Warns when a memory's ``content`` contains one of the ``placeholders``
        (``TODO``, ``TBD``, ``待补充``, ``待定`` by default): the model wrote
        a stub instead of the fact.

    Why is this bad?
        Memory is injected into later prompts as settled knowledge. A stub
        reads as a fact that says nothing, and nobody comes back to fill it in.

    Example:
        user: 支付服务的重试上限是多少？我去查一下
        ```json
        {"content": "支付服务的重试上限：待补充。", "type": "work_fact", "priority": 80}
        ```
        user: The staging database host is db-stage-2, port unknown yet.
        ```json
        {"content": "The staging database is db-stage-2, port TBD.", "type": "work_fact", "priority": 80}
        ```

    Use instead:
        user: 支付服务的重试上限是 3 次，超过就进死信队列
        ```json
        {"content": "支付服务的重试上限是 3 次，超过后消息进入死信队列。", "type": "work_fact", "priority": 80}
        ```
        user: The staging database host is db-stage-2 on port 5433.
        ```json
        {"content": "The staging database is db-stage-2 on port 5433.", "type": "work_fact", "priority": 80}
        ```
    """

    code = "YOUR001"               # 2-4 capital letters + 3 digits; built-in family letters alone are refused
    name = "placeholder-in-content"
    target = "memory"              # parse | output | scene | memory | record
    action = "warn"                # reject | drop | fix | warn (config can override)
    #: Where SARIF's helpUri points for this rule (optional).
    help_uri = "https://example.invalid/memvet-yourteam/YOUR001"

    class Options(memvet.RuleOptions):
        # Every word list is an option, with Chinese and English defaults.
        placeholders: list[str] = ["TODO", "TBD", "FIXME", "待补充", "待定", "待确认"]

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterator[memvet.Finding]:
        content = memory["content"]
        for word in self.options.placeholders:
            if word in content:
                # The path is relative to the target (the memory); memvet makes it absolute.
                yield memvet.Finding(f"the content still holds the placeholder {word!r}; write the fact or leave "
                                     "the memory out", path="/content")
                return


@memvet.hookimpl
def memvet_rules() -> list[type[memvet.Rule]]:
    return [PlaceholderInContent]
