"""Execute the *Example* and *Use instead* sections of a rule's docstring.

The convention, readable as documentation and runnable as a test::

    Example:
        user: 先把登录接口的返回改成 202，明天再回滚
        ```json
        {"content": "登录接口返回码统一为 202。", "type": "work_fact", "priority": 80}
        ```

    Use instead:
        user: 先把登录接口的返回改成 202，明天再回滚
        ```json
        {"content": "登录接口返回码临时改为 202，计划次日回滚。", "type": "work_task", "priority": 80}
        ```

Inside a section, lines ``user: ...`` / ``assistant: ...`` / ``tool: ...`` /
``system: ...`` are the batch's new messages (``background user: ...`` a
background one, ``pool: sc0003 | label`` a scene-pool entry; ``user
[session=s2, timestamp=null]: ...`` overrides a message's fields; ``config: {...}``
rule config as JSON and ``existing: {...}`` one stored memory, for the blocks
that follow); each fenced
block is one example output -- a memory, a scene, a whole output, or (for
parse rules, with the ``text`` tag) raw text -- completed by the shortcuts
of :mod:`memvet.testing.cases`. Every block under *Example* must raise the
rule's code; no block under *Use instead* may. A section with no fenced
block is prose only and is not executed.
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass
from typing import Any

from .cases import Case, build_context, build_output

_SECTION = re.compile(r"^(Example|Examples|Use instead):\s*$", re.MULTILINE)
_NEXT_SECTION = re.compile(r"^[A-Z][A-Za-z ?]+:\s*$", re.MULTILINE)
_ROLE = re.compile(r"^(background )?(user|assistant|tool|system)(\s*\[[^\]]*\])?:\s?(.*)$")
_POOL = re.compile(r"^pool:\s*(.+)$")
# ``config: {json}`` (rule config for the blocks that follow) and
# ``existing: {json}`` (one stored memory, the context's ``existing``) lines.
_EXTRA = re.compile(r"^(config|existing):\s*(\{.*\})\s*$")


@dataclass
class DocExample:
    rule: str
    section: str      # "Example" | "Use instead"
    index: int
    case: Case


def _sections(doc: str) -> list[tuple[str, str]]:
    doc = inspect.cleandoc(doc)
    out = []
    matches = list(_SECTION.finditer(doc))
    for k, m in enumerate(matches):
        start = m.end()
        nxt = _NEXT_SECTION.search(doc, start)
        end = nxt.start() if nxt else len(doc)
        if k + 1 < len(matches):
            end = min(end, matches[k + 1].start())
        out.append(("Use instead" if m.group(1) == "Use instead" else "Example", doc[start:end]))
    return out


def _blocks(body: str) -> list[tuple[dict[str, Any], str, str]]:
    """``(context-spec, tag, code)`` per fenced block.

    Message and pool lines belong to the blocks that follow them; a message
    line after a block starts a fresh context for the next block.
    """
    lines = body.splitlines()
    empty = lambda: {"messages": [], "background": [], "pool": []}  # noqa: E731
    spec, after_block = empty(), False
    blocks = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        fence = re.match(r"^(`{3,})(\w*)$", line)
        role, pool, extra = _ROLE.match(line), _POOL.match(line), _EXTRA.match(line)
        if fence:
            ticks, tag = fence.group(1), fence.group(2)
            code = []
            i += 1
            while i < len(lines) and lines[i].strip() != ticks:
                code.append(lines[i])
                i += 1
            blocks.append((spec, tag, inspect.cleandoc("\n".join(code))))
            after_block = True
        elif role or pool or extra:
            if after_block:
                spec, after_block = empty(), False
            if extra and extra.group(1) == "config":
                spec["config"] = json.loads(extra.group(2))
            elif extra:
                spec.setdefault("existing", []).append(json.loads(extra.group(2)))
            elif role:
                line_spec = f"{role.group(2)}{role.group(3) or ''}: {role.group(4)}"
                spec["background" if role.group(1) else "messages"].append(line_spec)
            else:
                spec["pool"].append(pool.group(1))
        i += 1
    return blocks


def doc_examples(cls: type) -> list[DocExample]:
    """Every executable example of one rule class."""
    out: list[DocExample] = []
    for section, body in _sections(cls.__doc__ or ""):
        for n, (spec, tag, code) in enumerate(_blocks(body)):
            context = build_context(spec)
            output: Any = code if tag == "text" else json.loads(code)
            case = Case(name=f"{section.lower().replace(' ', '_')}_{n}", rule=cls.code,
                        kind="fail" if section == "Example" else "pass",
                        context=context, output=build_output(output, context), config=spec.get("config", {}),
                        source=f"{cls.__module__}.{cls.__name__} docstring")
            out.append(DocExample(cls.code, section, n, case))
    return out


def run_doc_example(example: DocExample, *, plugins: tuple[Any, ...] = ()) -> None:
    from memvet.config import config_from_dict
    from memvet.engine import Engine
    from memvet.registry import build_registry

    case = example.case
    registry = build_registry(plugins=plugins) if plugins else None
    engine = Engine(config_from_dict({**case.config, "select": [case.rule]}), registry)
    report = engine.validate(case.output, case.context)
    crashes = [v.message for v in report.violations if v.code == "E001"]
    assert not crashes, f"{case.rule} {example.section} #{example.index}: the rule crashed: {crashes}"
    codes = [v.code for v in report.violations]
    if example.section == "Example":
        assert case.rule in codes, (
            f"{case.rule} {example.section} #{example.index} should raise {case.rule}; got {codes}\n"
            f"output: {json.dumps(case.output, ensure_ascii=False)[:400]}")
    else:
        assert case.rule not in codes, (
            f"{case.rule} {example.section} #{example.index} should not raise {case.rule}; "
            f"got {[v.message for v in report.violations if v.code == case.rule]}")
