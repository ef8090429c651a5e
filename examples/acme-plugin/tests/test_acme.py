import pathlib
import pytest
import acme_memvet
from memvet.testing import doc_examples, iter_case_files, run_case, run_doc_example

CASES = list(iter_case_files(pathlib.Path(__file__).parent / "cases"))
EXAMPLES = [ex for cls in acme_memvet.memvet_rules() for ex in doc_examples(cls)]

@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case(case):
    run_case(case, plugins=(acme_memvet,))

@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.section}-{e.index}")
def test_doc_example(example):
    run_doc_example(example, plugins=(acme_memvet,))
