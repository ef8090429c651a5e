"""What plugin authors need to test their rules.

* :mod:`memvet.testing.cases` -- YAML/JSON case files (pass / fail / fixed)
  run with only the rule under test enabled: ``load_cases``, ``run_case``.
* :mod:`memvet.testing.docexamples` -- run the *Example* / *Use instead*
  sections of a rule's docstring: ``doc_examples``, ``run_doc_example``.
* :mod:`memvet.testing.strategies` -- Hypothesis strategies that generate
  valid batch contexts with matching outputs and mutate them into malformed
  ones (needs the ``hypothesis`` package: ``pip install memvet[testing]``).

A ten-line test file for a plugin::

    import pytest
    from memvet.testing import iter_case_files, run_case

    CASES = list(iter_case_files("tests/cases"))

    @pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
    def test_case(case):
        run_case(case)
"""

from .cases import Case, build_context, build_output, iter_case_files, load_cases, run_case
from .docexamples import DocExample, doc_examples, run_doc_example

__all__ = ["Case", "build_context", "build_output", "iter_case_files", "load_cases", "run_case",
           "DocExample", "doc_examples", "run_doc_example"]
