"""Run every tests/rules/<CODE>.yaml case file (only rule CODE is on)."""

import pathlib

import pytest

from memvet.testing import iter_case_files, run_case

CASES = list(iter_case_files(pathlib.Path(__file__).parent))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case(case):
    run_case(case)
