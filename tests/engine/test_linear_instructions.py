"""Twice the input, about twice the instructions: counted by valgrind, so work inside one C call
(a regex that rescans, ``x in some_list``) is counted too.

``tests/workcount.py`` counts Python lines and calls, which cannot see such work: five patterns that
rescanned a long run of one character from each of its positions (a 100 KB memory took 40 s) and a
list scan per cited message (20 memories citing 4,000 messages: 1.5 s) passed the tests that count
events. Each test here runs one child process under ``valgrind --tool=cachegrind`` per size, and one
more with the setup alone (imports, inputs built, one warm-up call) to subtract. Instruction counts
do not move with the machine's load.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.instructions import cachegrind_refs

ROOT = Path(__file__).resolve().parents[2]

#: Bound on the ratio of the work at twice the size: linear is 2.0, quadratic 4.0.
LINEAR = 2.3

#: After a trigger word (or none), a run of one unit: the shapes that make an unanchored repeat rescan.
UNITS = ["a", "1", "1.", "a/", " ", "\t", "\n", "\n ", "`", "é", "ı", "在", "。", ":", "(", "'", "\\", "->", " -",
         "ab ", "A", "1 ", "a.b ", "&& ", "\n$ "]
PREFIXES = ["", "目前进度 ", "must ", "```\n"]

_COMMON = r"""
import json, sys
sys.path.insert(0, {root!r})
from memvet import validate
size = int(sys.argv[1])

def message(n, role, text):
    return {{"id": f"m{{n}}", "sessionKey": "s", "role": role, "content": text, "timestamp": 1795831200000 + 1000 * n}}

def memory(k, ids, text="项目统一用 pnpm 安装依赖，因为锁文件要一致。", type_="work_fact"):
    return {{"type": type_, "content": text, "priority": 80, "source_message_ids": ids,
            "metadata": {{"scope": "project", "note": f"n{{k}}"}}}}
"""

#: One answer per run: the same long run in the memory's content and a metadata string, the scene
#: name, and a user, an assistant and a tool message.
_LONG_TEXTS = _COMMON + r"""
units, prefixes = json.loads(sys.argv[2]), json.loads(sys.argv[3])

def case(text):
    messages = [message(n, role, text) for n, role in enumerate(("user", "assistant", "tool"), 1)]
    ids = [m["id"] for m in messages]
    mem = memory(0, ids, text, "work_method")
    mem["metadata"] = {{"scope": "project", "method_type": "procedure", "note": text}}
    answer = [{{"new_scene_name": "demo｜" + text, "new_scene_reason": "pool empty", "message_ids": ids,
               "memories": [mem]}}]
    return json.dumps(answer, ensure_ascii=False), {{"messages": messages}}

cases = [case(p + (u * (size // len(u) + 1))[:size]) for u in units for p in prefixes] if size else []
validate(*case("warm up 在 1"))
for raw, context in cases:
    validate(raw, context)
"""

#: Answers that grow in one dimension each: messages cited by every memory, memories in one scene,
#: scenes, messages in the batch, labels in the scene pool.
_MANY = _COMMON + r"""
texts = {{"user": "好的，就这样，用 pnpm 不要用 npm", "assistant": "I updated src/app.ts and ran the tests: 12 passed.",
          "tool": "$ npm test\n12 passed\nwrote src/app.ts"}}
roles = ("user", "assistant", "tool")

def batch(n):
    return [message(i, roles[i % 3], texts[roles[i % 3]] + f" {{i}}") for i in range(1, n + 1)]

def cases(n):
    msgs = batch(max(n, 3)); ids = [m["id"] for m in msgs]
    yield [{{"new_scene_name": "demo｜case", "new_scene_reason": "r", "message_ids": ids,
            "memories": [memory(k, ids) for k in range(20)]}}], {{"messages": msgs}}          # sources
    few = batch(30); few_ids = [m["id"] for m in few]
    yield [{{"new_scene_name": "demo｜case", "new_scene_reason": "r", "message_ids": few_ids,
            "memories": [memory(k, few_ids[k % 28:k % 28 + 2], f"组件 {{k}} 用 pnpm，因为锁文件 lock{{k}} 要一致。",
                                ("work_fact", "work_method", "work_task")[k % 3]) for k in range(n // 4)]}}], {{"messages": few}}
    yield [{{"new_scene_name": f"demo{{k}}｜case{{k}}", "new_scene_reason": "r", "message_ids": few_ids[k % 30:k % 30 + 1],
             "memories": [memory(k, few_ids[k % 30:k % 30 + 1], f"服务 {{k}} 用 pnpm，因为锁文件。")]}}
           for k in range(n // 4)], {{"messages": few}}                                           # scenes
    yield [{{"new_scene_name": "demo｜case", "new_scene_reason": "r", "message_ids": ids[:2],
            "memories": [memory(0, ids[:2])]}}], {{"messages": msgs}}                              # messages
    yield [{{"scene_id": "sc0001", "message_ids": few_ids[:2], "memories": [memory(0, few_ids[:2])]}}], {{
        "messages": few, "scenePool": [{{"id": f"sc{{k:04d}}", "label": f"proj{{k}}｜work {{k}}"}} for k in range(1, n + 1)]}}

work = [(json.dumps(a, ensure_ascii=False), c) for a, c in cases(size)] if size else []
validate(*[(json.dumps(a, ensure_ascii=False), c) for a, c in cases(8)][0])
for raw, context in work:
    validate(raw, context)
"""


def _instructions(child: str, *args: str, pycache: Path) -> int:
    """Instructions of ``python -c child *args`` under cachegrind.

    The same run first goes once without valgrind, so every module it imports (also one imported only
    for some input) is compiled into ``pycache``, a folder of this test alone: the counted run never
    compiles. The environment is a fixed minimum: nothing another test left in ``os.environ`` reaches it.
    """
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/"), "LANG": "C.UTF-8",
           "PYTHONHASHSEED": "0",  # the same set and dict layouts in every run
           "PYTHONPYCACHEPREFIX": str(pycache)}
    code = child.format(root=str(ROOT))
    subprocess.run([sys.executable, "-c", code, *args], check=True, env=env, timeout=600)
    return cachegrind_refs([sys.executable, "-c", code, *args], env, timeout=1200)


def _assert_linear(child: str, small: int, *args: str, pycache: Path) -> None:
    assert shutil.which("valgrind"), "valgrind is missing: run scripts/install-test-deps.sh"
    setup = _instructions(child, "0", *args, pycache=pycache)
    small_run = _instructions(child, str(small), *args, pycache=pycache)
    large_run = _instructions(child, str(2 * small), *args, pycache=pycache)
    work_small, work_large = small_run - setup, large_run - setup
    assert work_large <= LINEAR * work_small, (
        f"size {small}: {work_small:,} instructions; {2 * small}: {work_large:,} "
        f"({work_large / work_small:.2f}x; linear is 2x; runs: setup {setup:,}, {small_run:,}, {large_run:,})")


@pytest.mark.slow
def test_every_text_is_read_in_linear_time(tmp_path):
    """A long run of one character in every text the rules read (a regex that rescans it fails here)."""
    _assert_linear(_LONG_TEXTS, 3_000, json.dumps(UNITS, ensure_ascii=False), json.dumps(PREFIXES, ensure_ascii=False),
                   pycache=tmp_path)


@pytest.mark.slow
def test_answers_and_batches_are_checked_in_linear_time(tmp_path):
    """More cited messages, memories, scenes, batch messages or pool labels: proportionally more work."""
    _assert_linear(_MANY, 1_000, pycache=tmp_path)
