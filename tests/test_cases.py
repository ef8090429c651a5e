"""Run every YAML case file under tests/cases/ (only the rule under test is on)."""

import pathlib

import pytest

from memvet.testing import iter_case_files, run_case

CASES = list(iter_case_files(pathlib.Path(__file__).parent / "cases"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case(case):
    run_case(case)
