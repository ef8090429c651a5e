"""Work counted, not timed: Python lines executed plus Python and C calls made.

A test that asserts "10x the input, about 10x the work" on these counts
gives the same answer on an idle laptop and a loaded CI box (issue: no
assertion on wall-clock time anywhere). What it cannot see is work inside
one C call -- a regex that backtracks, a ``str`` method -- so the
instruction counts of valgrind (``tests/engine/test_linear_instructions.py``,
``benchmarks/instructions.py``) remain the measure of those; here, a rule
that rescans a text from Python, once per position, per sentence or per
word, shows up as lines and calls.
"""

from __future__ import annotations

import sys
from typing import Any, Callable


def work(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[int, Any]:
    """``(events, result)`` of ``fn(*args, **kwargs)``: lines + calls + C calls in this thread."""
    count = 0

    def on_profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    def on_trace(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return on_trace

    old_profile, old_trace = sys.getprofile(), sys.gettrace()
    sys.setprofile(on_profile)
    sys.settrace(on_trace)
    try:
        result = fn(*args, **kwargs)
    finally:
        sys.settrace(old_trace)
        sys.setprofile(old_profile)
    return count, result


def assert_linear(measure: Callable[[int], int], small: int, large: int, *, slack: float = 1.25,
                  what: str = "") -> tuple[int, int]:
    """``measure(large)`` at most ``slack`` x (large / small) x ``measure(small)``: linear, not quadratic."""
    w_small, w_large = measure(small), measure(large)
    bound = slack * (large / small) * w_small
    assert w_large <= bound, f"{what}: {w_small} events at {small}, {w_large} at {large} (linear bound {bound:.0f})"
    return w_small, w_large
