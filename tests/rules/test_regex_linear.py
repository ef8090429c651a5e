"""Long runs of one character in every text of an answer and its batch: twice the text, about twice
the instructions (counted by valgrind, so the work inside one regex call is counted too).

``test_content_rules.py`` counts Python lines and calls, which cannot see a regex that rescans a run
from each of its characters; three such patterns (a suffix search, a shell-prompt search across blank
lines, an unclosed code fence) took 40 s on a 100 KB text while that test passed. Here every text
the rules read -- the memory's content and a metadata string, the scene name, a user, an assistant
and a tool message -- holds the same long run, one answer per run, and the whole set is counted at
two sizes. Instruction counts do not move with the machine's load.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: After a trigger word (or none), a run of one unit: the shapes that make an unanchored repeat rescan.
UNITS = ["a", "1", "1.", "a/", " ", "\t", "\n", "\n ", "`", "é", "ı", "在", "。", ":", "(", "'", "\\", "->", " -",
         "ab ", "A", "1 ", "a.b ", "&& ", "\n$ "]
PREFIXES = ["", "目前进度 ", "must ", "```\n"]

_CHILD = r"""
import json, sys
sys.path.insert(0, {root!r})
from memvet import validate
units, prefixes, size = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])

def case(text):
    ids = ["m1", "m2", "m3"]
    messages = [{{"id": i, "sessionKey": "s", "role": r, "content": text, "timestamp": 1795831200000 + 60000 * n}}
                for n, (i, r) in enumerate(zip(ids, ("user", "assistant", "tool")))]
    memory = {{"type": "work_method", "content": text, "priority": 80, "source_message_ids": ids,
              "metadata": {{"scope": "project", "method_type": "procedure", "note": text}}}}
    answer = [{{"new_scene_name": "demo｜" + text, "new_scene_reason": "pool empty", "message_ids": ids,
               "memories": [memory]}}]
    return json.dumps(answer, ensure_ascii=False), {{"messages": messages}}

cases = [case(p + (u * (max(size, 1) // len(u) + 1))[:size]) for u in units for p in prefixes]
validate(*case("warm up 在 1"))
if size:
    for raw, context in cases:
        validate(raw, context)
"""


def _instructions(size: int) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    args = [json.dumps(UNITS, ensure_ascii=False), json.dumps(PREFIXES, ensure_ascii=False), str(size)]
    child = _CHILD.format(root=str(ROOT))
    subprocess.run([sys.executable, "-c", child, *args[:2], "0"], check=True, env=env, timeout=600)  # bytecode
    out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          sys.executable, "-c", child, *args], capture_output=True, text=True, env=env, timeout=1200)
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    assert out.returncode == 0 and found, out.stderr[-2000:]
    return int(found.group(1).replace(",", ""))


@pytest.mark.slow
def test_every_text_is_read_in_linear_time():
    assert shutil.which("valgrind"), "valgrind is missing: run scripts/install-test-deps.sh"
    setup, small, large = _instructions(0), _instructions(3_000), _instructions(6_000)
    work_small, work_large = small - setup, large - setup
    assert work_large <= 2.3 * work_small, (
        f"3,000 characters: {work_small:,} instructions; 6,000: {work_large:,} ({work_large / work_small:.2f}x; "
        "linear is 2x): a pattern rescans a run of one character from each of its positions")
