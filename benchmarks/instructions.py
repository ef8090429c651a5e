"""Instructions per answer, counted by valgrind: ratios that do not move with the machine's load.

Timings on a shared machine move by +-25 % between runs; the number of
instructions a CPU executes for the same code and input does not (to ~0.3 %).
For each competitor a child process runs the same generated answers twice
under ``valgrind --tool=cachegrind`` -- once only the setup (imports,
answers, one warm-up call each), once the setup plus ``repeat`` passes over
the answers -- and the difference divided by the calls is the count per
answer. Instructions are not time (a regex-heavy loop and a dict-heavy loop
retire instructions at different rates), so these ratios complement the
timed ones; they are what to compare between two versions of memvet.

    python benchmarks/run.py --only instructions
    python -m benchmarks.instructions            # the same, on its own

Skipped (with a note) where valgrind is not installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: The child: build the answers, set up one competitor, warm it, then time ``repeat`` passes.
_CHILD = r"""
import json, sys
sys.path.insert(0, {root!r})
from benchmarks.generate import make_answers
name, fault_rate, count, repeat = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
answers = make_answers(count, seed=9, fault_rate=fault_rate)
raws = [a.raw for a in answers]
if name == "memvet":
    from memvet import validate
    calls = [lambda a=a: validate(a.raw, a.context) for a in answers]
elif name == "jsonschema":
    from jsonschema import Draft202012Validator
    from memvet.schemas import OUTPUT, load
    checker = Draft202012Validator(load(OUTPUT))
    docs = [json.loads(r) for r in raws]
    calls = [lambda d=d: list(checker.iter_errors(d)) for d in docs]
else:
    from memvet.models import Output
    def parse(raw):
        try:
            Output.validate_json(raw)
        except ValueError:
            pass
    calls = [lambda r=r: parse(r) for r in raws]
for call in calls:
    call()
for _ in range(repeat):
    for call in calls:
        call()
"""

#: Passes over the answers per competitor: enough calls that the measured part dwarfs
#: the run-to-run wobble of the setup (a few million instructions).
COMPETITORS = {"memvet": 5, "jsonschema": 3, "pydantic": 100}


def available() -> bool:
    return shutil.which("valgrind") is not None


def cachegrind_refs(argv: list[str], env: dict[str, str], timeout: float = 1800) -> int:
    """Instructions executed by ``argv`` under ``valgrind --tool=cachegrind`` (its "I refs")."""
    out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          *argv], capture_output=True, text=True, timeout=timeout, env=env)
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if out.returncode != 0 or found is None:
        raise RuntimeError(f"valgrind run of {argv[:2]} failed: {out.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def _count(name: str, fault_rate: float, answers: int, repeat: int) -> int:
    child = _CHILD.format(root=str(ROOT))
    # A fixed hash seed: the same set and dict layouts in both runs, so the setup cancels out.
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONHASHSEED": "0"}
    return cachegrind_refs([sys.executable, "-c", child, name, str(fault_rate), str(answers), str(repeat)], env)


def _warm_bytecode(name: str, fault_rate: float, answers: int) -> None:
    """Import everything once outside valgrind, so that both counted runs load cached bytecode.

    Otherwise a source edited since the last import is compiled in the setup
    run only (the full run then finds the .pyc), and the compile's tens of
    millions of instructions are subtracted from the calls: a change once
    looked 2.5x cheaper than it was.
    """
    subprocess.run([sys.executable, "-c", _CHILD.format(root=str(ROOT)), name, str(fault_rate), str(answers), "0"],
                   capture_output=True, timeout=600,
                   env={**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONHASHSEED": "0"})


def per_answer(name: str, fault_rate: float, *, answers: int = 10, repeat: int | None = None) -> float:
    """Instructions of one call (one 20-memory answer), setup subtracted."""
    repeat = repeat or COMPETITORS[name]
    _warm_bytecode(name, fault_rate, answers)
    setup = _count(name, fault_rate, answers, 0)
    full = _count(name, fault_rate, answers, repeat)
    return (full - setup) / (answers * repeat)


def measure(answers: int = 10) -> dict[str, Any]:
    """Instructions per 20-memory answer of each competitor, on valid and all-faulty answers."""
    if not available():
        return {"available": False}
    rows = []
    for label, fault_rate in (("valid", 0.0), ("faulty", 1.0)):
        counts = {name: per_answer(name, fault_rate, answers=answers) for name in COMPETITORS}
        rows.append({"answers": label, **{f"{n}_per_answer": c for n, c in counts.items()},
                     "vs_jsonschema": counts["memvet"] / counts["jsonschema"],
                     "vs_pydantic": counts["memvet"] / counts["pydantic"]})
    return {"available": True, "rows": rows, "answer": "3 scenes, 20 memories",
            "method": "valgrind cachegrind, setup run subtracted"}


def text(section: dict[str, Any]) -> str:
    if not section.get("available"):
        return "valgrind is not installed: instruction counts skipped"
    lines = [f"{'':8}{'memvet':>14}{'jsonschema':>14}{'pydantic':>14}{'vs jsonschema':>15}{'vs pydantic':>13}"]
    for r in section["rows"]:
        lines.append(f"{r['answers']:8}{r['memvet_per_answer'] / 1e6:>12.2f} M{r['jsonschema_per_answer'] / 1e6:>12.2f} M"
                     f"{r['pydantic_per_answer'] / 1e6:>12.2f} M{r['vs_jsonschema']:>14.2f}x{r['vs_pydantic']:>12.2f}x")
    return "\n".join(lines)


if __name__ == "__main__":
    print(text(measure()))
