"""Every rule's docstring: the four sections, and its examples run for real."""

from __future__ import annotations

import inspect

import pytest

from memvet.registry import default_registry
from memvet.testing import doc_examples, run_doc_example

RULES = default_registry().ordered()
EXAMPLES = [ex for cls in RULES for ex in doc_examples(cls)]
SECTIONS = ("What it does:", "Why is this bad?", "Example:", "Use instead:")


@pytest.mark.parametrize("cls", RULES, ids=lambda c: c.code)
def test_docstring_has_sections(cls):
    doc = inspect.cleandoc(cls.__doc__ or "")
    missing = [s for s in SECTIONS if s not in doc]
    assert not missing, f"{cls.code} docstring lacks {missing}"


@pytest.mark.parametrize("cls", [c for c in RULES if not getattr(c, "engine_only", False)], ids=lambda c: c.code)
def test_rule_has_executable_examples(cls):
    sections = {ex.section for ex in doc_examples(cls)}
    assert sections == {"Example", "Use instead"}, f"{cls.code}: examples found for {sections}"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.rule}-{e.section.replace(' ', '_')}-{e.index}")
def test_doc_example(example):
    run_doc_example(example)
