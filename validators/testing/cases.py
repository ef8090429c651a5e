"""Case files: YAML (or JSON) test cases for one rule, run with only that rule on.

Format (one file per rule or family)::

    rule: I001                    # the code under test (a case may override it)
    cases:
      invented_scene_id:
        kind: fail                # pass | fail | fixed
        pool: ["sc0003 | memory-system｜L1 提取规则"]
        messages: ["user: 先把登录接口的返回改成 202"]
        output: [{"scene_id": "sc0007", "message_ids": ["m1"],
                  "memories": [{"content": "...", "type": "work_fact",
                                "priority": 80, "source_message_ids": ["m1"]}]}]
        expect:
          - {code: I001, path: /0/scene_id}
      reused_from_pool:
        kind: pass
        ...
      half_width_bar:
        kind: fixed
        output: ...
        fixed: [...]              # report.output after fixes (optional)
        expect: [{code: L003, path: /0/new_scene_name}]

Context shortcuts (or give ``context:`` in full, see docs/formats.md):
``messages`` / ``background``: ``"role: text"`` strings, ids ``m1, m2 ...``
in order over both lists (background first), one session ``case``, one
minute apart (a line may override them: ``"user [session=s2, id=m1,
timestamp=null]: text"``; keys ``id``, ``session``, ``timestamp``,
``recordedAt``); ``pool``: ``"id | label"`` strings; ``known_projects``;
``existing``. A memory's ``source_message_ids`` defaults to every new
message; a memory alone (an object with ``content``) is wrapped in a new
scene ``demo｜case``; ``config`` adds rule options (``{rules: {CODE: ...}}``).

- ``fail``: the rule's violations, as ``(code, path)`` pairs, equal ``expect``;
  an entry with ``confidence: low`` (or ``high``) also checks how sure the finding is.
- ``pass``: the rule raises nothing.
- ``fixed``: like ``fail``, and the report's ``output`` equals ``fixed``.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import yaml

BASE_MS = 1_795_831_200_000  # 2026-11-28T02:00:00Z
ROLES = ("user", "assistant", "tool", "system")


@dataclass
class Case:
    name: str
    rule: str
    kind: str
    context: dict[str, Any]
    output: Any
    expect: list[tuple[str, str]] = field(default_factory=list)
    fixed: Any = None
    has_fixed: bool = False
    config: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    #: ``{(code, path): "high" | "low"}`` for the ``expect`` entries that name a confidence.
    confidence: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.rule}:{self.name}"


_HEAD = re.compile(r"^\s*(\w+)\s*(?:\[([^\]]*)\])?\s*$")
_ATTRIBUTES = {"id": "id", "session": "sessionKey", "timestamp": "timestamp", "recordedAt": "recordedAt"}


def _line_attributes(text: str | None, line: str) -> dict[str, Any]:
    """``session=s2, timestamp=null`` -> message fields (``null`` is None, digits an int)."""
    out: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        key, eq, value = (x.strip() for x in item.partition("="))
        if not eq or key not in _ATTRIBUTES:
            raise ValueError(f"message attribute must be one of {', '.join(_ATTRIBUTES)}=value: {line!r}")
        out[_ATTRIBUTES[key]] = None if value == "null" else int(value) if value.isdigit() else value
    return out


def parse_message_lines(lines: list[str], *, session: str = "case", start: int = 1) -> list[dict[str, Any]]:
    out = []
    for n, line in enumerate(lines, start):
        head, sep, text = line.partition(":")
        m = _HEAD.match(head)
        if not sep or not m or m.group(1) not in ROLES:
            raise ValueError(f"message line must start with one of {ROLES}: {line!r}")
        ms = BASE_MS + 60_000 * (n - 1)
        message = {"id": f"m{n}", "sessionKey": session, "role": m.group(1), "content": text.strip(),
                   "timestamp": ms, "recordedAt": ms + 300_000}
        message.update(_line_attributes(m.group(2), line))
        out.append(message)
    return out


def build_context(spec: dict[str, Any]) -> dict[str, Any]:
    if "context" in spec:
        return copy.deepcopy(spec["context"])
    background = parse_message_lines(spec.get("background", []))
    messages = parse_message_lines(spec.get("messages", []), start=len(background) + 1)
    ctx: dict[str, Any] = {"messages": messages, "background": background}
    pool = spec.get("pool", [])
    ctx["scenePool"] = [{"id": e.partition("|")[0].strip(), "label": e.partition("|")[2].strip()} for e in pool]
    ctx["knownProjects"] = spec.get("known_projects", ["demo"])
    if "existing" in spec:
        ctx["existing"] = spec["existing"]
    return ctx


def build_output(output: Any, context: dict[str, Any]) -> Any:
    """Fill the shortcuts: a lone memory becomes a scene; sources default to every new message."""
    if isinstance(output, str):
        return output  # raw text: the parse stage is under test
    output = copy.deepcopy(output)
    ids = [m["id"] for m in context.get("messages", [])]
    if isinstance(output, dict) and "content" in output:
        output = {"new_scene_name": "demo｜case", "new_scene_reason": "场景池为空，新建情境。", "memories": [output]}
    if isinstance(output, dict) and "memories" in output:
        output = [output]
    if isinstance(output, list):
        for scene in output:
            if isinstance(scene, dict) and isinstance(scene.get("memories"), list):
                scene.setdefault("message_ids", list(ids))
                for mem in scene["memories"]:
                    if isinstance(mem, dict):
                        mem.setdefault("source_message_ids", list(ids))
    return output


def _case(name: str, rule: str, spec: dict[str, Any], source: str) -> Case:
    kind = spec.get("kind", "fail" if spec.get("expect") else "pass")
    if kind not in ("pass", "fail", "fixed"):
        raise ValueError(f"{source}: case {name!r}: kind must be pass, fail or fixed")
    context = build_context(spec)
    output = build_output(spec["output"], context)
    expect = [(e["code"], e.get("path", "")) for e in spec.get("expect", [])]
    confidence = {(e["code"], e.get("path", "")): e["confidence"] for e in spec.get("expect", [])
                  if "confidence" in e}
    if any(c not in ("high", "low") for c in confidence.values()):
        raise ValueError(f"{source}: case {name!r}: an expected confidence is high or low")
    return Case(name=name, rule=spec.get("rule", rule), kind=kind, context=context, output=output,
                expect=expect, fixed=spec.get("fixed"), has_fixed="fixed" in spec,
                config=spec.get("config", {}), source=source, confidence=confidence)


def load_cases(path: str | Path) -> list[Case]:
    """Read a YAML or JSON case file."""
    path = Path(path)
    text = path.read_text("utf-8")
    data = json.loads(text) if path.suffix == ".json" else _load_yaml(text, str(path))
    rule = data.get("rule", "")
    return [_case(name, rule, spec, str(path)) for name, spec in (data.get("cases") or {}).items()]


#: Keys whose values are prose: in them an unquoted " #" is text, never a comment the author meant.
_TEXT_KEYS = frozenset({"content", "new_scene_name", "new_scene_reason", "messages"})


def _load_yaml(text: str, source: str) -> Any:
    """``yaml.safe_load(text)``, parsed once: the node tree is checked (:func:`_refuse_cut_texts`)
    before it is built into data, as ``safe_load`` itself does in two steps."""
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        _refuse_cut_texts(root, text.splitlines(), source)
        return loader.construct_document(root)
    finally:
        loader.dispose()


def _refuse_cut_texts(root: Any, lines: list[str], source: str) -> None:
    """Refuse a plain (unquoted) text value that YAML cut at " #".

    YAML reads `` #`` after a plain scalar as the start of a comment, so
    ``content: On PR #412, 3 tests failed`` loads as "On PR" and the case
    silently tests something else. Only the prose fields are looked at
    (a comment after ``priority: 80`` is a comment).
    """

    def cut(node: Any, key: str) -> None:
        if isinstance(node, yaml.ScalarNode):
            if key in _TEXT_KEYS and node.style is None and node.end_mark.line < len(lines):
                rest = lines[node.end_mark.line][node.end_mark.column:]
                if rest.lstrip().startswith("#"):
                    raise ValueError(f"{source}:{node.end_mark.line + 1}: the unquoted {key} value stops at "
                                     f"' #' (YAML reads the rest as a comment); quote the value")
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                cut(item, key)
        elif isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                cut(v, k.value if isinstance(k, yaml.ScalarNode) else "")

    cut(root, "")


def iter_case_files(folder: str | Path) -> Iterator[Case]:
    for path in sorted(Path(folder).glob("*.y*ml")) + sorted(Path(folder).glob("*.json")):
        yield from load_cases(path)


def case_config(case: Case) -> dict[str, Any]:
    """Only the rule under test is on."""
    cfg = {"select": [case.rule]}
    cfg.update(copy.deepcopy(case.config))
    cfg["select"] = [case.rule]
    return cfg


def run_case(case: Case, *, plugins: tuple[Any, ...] = ()) -> None:
    """Run one case; raise AssertionError with a readable diff when it fails."""
    from memvet.config import config_from_dict
    from memvet.engine import Engine
    from memvet.registry import build_registry

    registry = build_registry(plugins=plugins) if plugins else None
    engine = Engine(config_from_dict(case_config(case)), registry)
    report = engine.validate(case.output, case.context)
    got = sorted((v.code, v.path) for v in report.violations if v.code == case.rule or
                 v.code in {c for c, _ in case.expect})
    crashes = [v.message for v in report.violations if v.code == "E001"]
    assert not crashes, f"{case.id}: the rule crashed: {crashes}"
    if case.kind == "pass":
        assert not got, f"{case.id}: expected no {case.rule} finding, got {got}"
        return
    assert got == sorted(case.expect), f"{case.id}: expected {sorted(case.expect)}, got {got}"
    if case.confidence:
        sure = {(v.code, v.path): v.confidence for v in report.violations}
        wrong = {k: sure.get(k) for k, want in case.confidence.items() if sure.get(k) != want}
        assert not wrong, f"{case.id}: expected confidence {case.confidence}, got {wrong}"
    if case.kind == "fixed" and case.has_fixed:
        assert report.output == case.fixed, (
            f"{case.id}: output after fixes differs:\n  expected {json.dumps(case.fixed, ensure_ascii=False)}\n"
            f"  got      {json.dumps(report.output, ensure_ascii=False)}")
