"""No test asserts on wall-clock time: linearity and cost are counted (tests/workcount.py), timings live in benchmarks/."""

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
CLOCKS = re.compile(r"\b(?:perf_counter(?:_ns)?|process_time(?:_ns)?|monotonic(?:_ns)?|thread_time(?:_ns)?|timeit)\b"
                    r"|\btime\.time(?:_ns)?\(")


def test_no_test_reads_a_clock():
    readers = [f"{path.relative_to(TESTS)}:{n}: {line.strip()}"
               for path in sorted(TESTS.rglob("*.py")) if path != Path(__file__).resolve()
               for n, line in enumerate(path.read_text("utf-8").splitlines(), 1) if CLOCKS.search(line)]
    assert not readers, "a test reads the clock (count work instead):\n" + "\n".join(readers)
