"""Run the case files and the docstring examples of every rule of this plugin."""

import pathlib

import pytest

import memvet_yourteam
from memvet.testing import doc_examples, iter_case_files, run_case, run_doc_example

CASES = list(iter_case_files(pathlib.Path(__file__).parent / "cases"))
EXAMPLES = [ex for cls in memvet_yourteam.memvet_rules() for ex in doc_examples(cls)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case(case):
    run_case(case, plugins=(memvet_yourteam,))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.rule}-{e.section}-{e.index}")
def test_doc_example(example):
    run_doc_example(example, plugins=(memvet_yourteam,))
