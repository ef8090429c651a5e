"""Rules that reject or drop on words, on helper-written probes: words of their lists used without the fault.

Each probe (``tests/data/probes/``, README there) is a memory, a scene label or a small batch with a memory, judged
by the helper who wrote it. A probe the writer judged clean must not get a certain finding (which rejects the
answer, or drops the memory for G001); one judged faulty should. The ``.tune`` sets were fixed against, the ``.check`` sets measured once and not
tuned on. Counted with the rule alone, through the engine; the bounds are the counts measured when the sets were
added (session 25): a change that adds a false alarm or loses a catch fails here, and one that does better
tightens the bound.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvet.config import config_from_dict
from memvet.engine import Engine
from memvet.testing.cases import build_context, build_output

PROBES = Path(__file__).resolve().parents[1] / "data" / "probes"

#: (file, rule) -> (most certain findings on clean probes, fewest certain findings on faulty ones).
BOUNDS = {
    ("L002-L004.tune.jsonl", "L002"): (14, 14), ("L002-L004.tune.jsonl", "L004"): (4, 13),
    ("L002-L004.check.jsonl", "L002"): (10, 13), ("L002-L004.check.jsonl", "L004"): (8, 12),
    ("W008.tune.jsonl", "W008"): (0, 10), ("W008.check.jsonl", "W008"): (1, 13),
    ("L001.tune.jsonl", "L001"): (0, 17), ("L001.check.jsonl", "L001"): (0, 18),
    ("G001.tune.jsonl", "G001"): (4, 18), ("G001.check.jsonl", "G001"): (4, 17),
}

_FAULT = {"L002": "leans_on_conversation", "L004": "names_activity", "W008": "proposal_as_decision", "L001": "mismatch",
          "G001": "change_log_only"}


def _case(probe: dict) -> tuple[dict, object]:
    """The batch context and the answer of one probe."""
    if probe.get("rule") in ("L002", "L004"):  # a memory's content or a scene label, no batch of its own
        ctx = build_context({"messages": ["user: (probe)"]})
        if probe["rule"] == "L004":
            return ctx, [{"new_scene_name": probe["scene_name"], "new_scene_reason": "No pool scene fits.",
                          "memories": [{"content": "probe", "type": "work_fact", "priority": 80}],
                          "message_ids": ["m1"]}]
        return ctx, build_output({"content": probe["content"], "type": "work_fact", "priority": 80}, ctx)
    ctx = build_context({"messages": probe["messages"]})
    return ctx, build_output(probe["memory"], ctx)


def _certain(engine: Engine, rule: str, probe: dict) -> bool:
    ctx, output = _case(probe)
    report = engine.validate(json.dumps(output, ensure_ascii=False), ctx)
    where = "/new_scene_name" if rule == "L004" else "/memories/"
    return any(v.code == rule and v.action in ("reject", "drop") and where in v.path for v in report.violations)


@pytest.mark.parametrize(("name", "rule"), sorted(BOUNDS))
def test_probes_keep_their_false_alarms_and_catches(name: str, rule: str) -> None:
    engine = Engine(config_from_dict({"select": [rule]}))
    probes = [json.loads(line) for line in (PROBES / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    probes = [p for p in probes if p.get("rule", rule) == rule]
    assert probes, f"{name} holds no probe of {rule}"
    alarms = sum(_certain(engine, rule, p) for p in probes if not p[_FAULT[rule]])
    catches = sum(_certain(engine, rule, p) for p in probes if p[_FAULT[rule]])
    most_alarms, fewest_catches = BOUNDS[(name, rule)]
    assert alarms <= most_alarms, f"{rule} on {name}: {alarms} certain findings on clean probes (bound {most_alarms})"
    assert catches >= fewest_catches, f"{rule} on {name}: {catches} faulty probes caught (bound {fewest_catches})"
