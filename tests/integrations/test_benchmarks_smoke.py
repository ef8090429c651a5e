"""The benchmark generator and runner work at toy sizes (no timing assertions)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks import generate, run  # noqa: E402
from memvet import validate  # noqa: E402
from memvet.contract import validator  # noqa: E402
from memvet.models import accepts  # noqa: E402


def test_same_seed_same_bytes_and_other_seed_other_bytes():
    a = generate.make_answer(3, fault_rate=0.2)
    b = generate.make_answer(3, fault_rate=0.2)
    c = generate.make_answer(4, fault_rate=0.2)
    assert a.jsonl() == b.jsonl()
    assert a.jsonl() != c.jsonl()


@pytest.mark.parametrize("memories,scenes", [(1, 1), (20, 3), (45, 6)])
def test_clean_answers_follow_the_contract_at_the_asked_size(memories, scenes):
    for seed in range(5):
        answer = generate.make_answer(seed, scenes=scenes, memories=memories)
        output = json.loads(answer.raw)
        assert len(output) == scenes
        assert sum(len(s["memories"]) for s in output) == answer.memories == memories
        assert accepts(output) and validator().is_valid(output)
        assert answer.faults == []
        ids = {m["id"] for m in answer.context["messages"]}
        for scene in output:
            assert set(scene["message_ids"]) <= ids
            for memory in scene["memories"]:
                assert set(memory["source_message_ids"]) <= set(scene["message_ids"])
                assert memory["priority"] >= 70


def test_clean_answers_raise_no_shape_or_type_fault():
    for seed in range(10):
        answer = generate.make_answer(seed)
        report = validate(answer.raw, answer.context, config={"select": ["S", "T"]})
        assert report.violations == [], (seed, report.codes())


def test_both_languages_appear():
    langs = {a.lang for a in generate.make_answers(30)}
    assert langs == {"zh", "en"}


def test_faulty_answers_mark_every_memory_with_a_fault_of_the_catalogue():
    answer = generate.make_answer(1, scenes=3, memories=len(generate.FAULTS) + 5, fault_rate=1.0)
    output = json.loads(answer.raw)
    pointers = [f"/{i}/memories/{j}" for i, s in enumerate(output) for j in range(len(s["memories"]))]
    assert [p for p, _ in answer.faults] == pointers
    assert {name for _, name in answer.faults} == set(generate.FAULTS)
    # the scene-level faults of a faulty answer: one invented id, one half-width bar
    assert output[0]["scene_id"] == "sc9999"
    assert "|" in output[2]["new_scene_name"]


@pytest.mark.parametrize("name", sorted(generate.FAULTS))
def test_each_fault_changes_the_memory(name):
    code, _ = generate.FAULTS[name]
    assert len(code) == 4 and code[0] in "ITLGMPQW"
    for seed in range(3):
        answer = generate.make_answer(seed, scenes=1, memories=1, fault_rate=1.0, fault_names=(name,))
        clean = generate.make_answer(seed, scenes=1, memories=1)
        assert answer.faults == [("/0/memories/0", name)] and clean.faults == []
        faulty = json.loads(answer.raw)[0]["memories"][0]
        assert faulty != json.loads(clean.raw)[0]["memories"][0], name


def test_jsonl_lines_are_what_memvet_check_reads(tmp_path):
    path = tmp_path / "a.jsonl"
    written = generate.write_jsonl(str(path), 4, seed=2, memories=3, scenes=1, fault_rate=0.5)
    lines = path.read_text("utf-8").splitlines()
    assert len(lines) == 4 and written == 12
    for line in lines:
        item = json.loads(line)
        assert set(item) == {"context", "output"}
        assert isinstance(item["output"], str)
    assert lines == [x.rstrip("\n") for x in generate.iter_jsonl(4, seed=2, memories=3, scenes=1, fault_rate=0.5)]


@pytest.mark.slow
def test_runner_in_process_sections_at_toy_size():
    sizes = run.Sizes.quick()
    sizes.answers = 4
    logged: list[str] = []
    res = run.run(sizes, only=("throughput", "stages", "latency", "scaling"), log=logged.append)
    valid = res.sections["throughput_valid"]
    names = [r["name"] for r in valid["rows"]]
    for expected in ("memvet (all rules)", "jsonschema (schema only)", "pydantic validate_json", "json.loads"):
        assert expected in names
    assert any(n.startswith("memvet without ") for n in names)
    assert valid["memories"] == 4 * 20
    assert all(r["memories_per_s"] > 0 for r in valid["rows"])
    faulty = res.sections["throughput_faulty"]["verdicts"]
    assert faulty["faulty_memories"] == 4 * 20
    assert faulty["rejected"] == 4  # the invented scene id alone rejects each faulty answer
    stage_names = [s["stage"] for s in res.sections["stages_valid"]["stages"]]
    assert "parse (raw text -> JSON)" in stage_names and any(s.startswith("rules: memory") for s in stage_names)
    assert res.sections["stages_valid"]["rules"], "per-rule timings"
    lat = res.sections["latency"]
    assert 0 < lat["p50_ms"] <= lat["p95_ms"] <= lat["max_ms"]
    assert [r["factor"] for r in res.sections["scaling"]["rows"]] == [1, 10, 1, 10]
    assert {t["target"] for t in res.targets} >= {"valid answers, memories/s", "p50 latency, 20-memory answer"}
    text = "\n".join(logged)
    assert "## targets" in text and "memvet (all rules)" in text
    md = run.markdown(res, "python benchmarks/run.py --quick")
    assert "| target |" in md and "memvet (all rules)" in md


def test_runner_drives_memvet_check_as_a_subprocess(tmp_path):
    section = run.cli_scaling((1, 3), str(tmp_path))
    assert [r["answers"] for r in section["rows"]] == [1, 3]
    assert all(r["exit"] == 0 and r["max_rss_mb"] > 0 for r in section["rows"]), section
    stream = run.streaming(20, 5)
    assert [r["lines"] for r in stream["rows"]] == [5, 20]
    assert all(r["exit"] == 0 for r in stream["rows"]), stream


def test_instruction_section_renders_and_is_skipped_without_valgrind(monkeypatch):
    from benchmarks import instructions

    monkeypatch.setattr(instructions.shutil, "which", lambda name: None)
    assert instructions.measure() == {"available": False}
    assert "skipped" in instructions.text({"available": False})
    res = run.Results(sections={"instructions": {"available": True, "rows": [
        {"answers": "valid", "memvet_per_answer": 9e6, "jsonschema_per_answer": 18e6, "pydantic_per_answer": 6e5,
         "vs_jsonschema": 0.5, "vs_pydantic": 15.0}]}})
    md = run.markdown(res, "python benchmarks/run.py --only instructions")
    assert "| valid | 9.00 M | 18.00 M | 0.60 M | 0.50× | 15.00× |" in md


@pytest.mark.slow
@pytest.mark.skipif(not __import__("shutil").which("valgrind"), reason="valgrind is not installed")
def test_instruction_counts_are_positive_and_subtract_the_setup():
    from benchmarks import instructions

    count = instructions.per_answer("pydantic", 0.0, answers=2, repeat=50)
    assert 1e4 < count < 1e8  # one pydantic parse of a 20-memory answer: ~0.65 M instructions
