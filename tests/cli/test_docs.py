"""The generated docs are current, every rule has its page, and no user-facing text cites internal files."""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys

import pytest

import memvet
from memvet.ci_formats import RULE_DOCS_URI, help_uri, plain, sarif_rule
from memvet.cli import build_parser
from memvet.registry import default_registry
from memvet.rule_docs import SECTIONS, builtin_pages, fix_safety, split_doc

from conftest import REPO

RULE_DOCS = REPO / "docs" / "rules"
# The seeds and spec files are the team's, not the user's: never cite them to a user.
INTERNAL = re.compile(r"\bseed\s*0\d\d\b|CONTRACT(\.md)?\s+section|\b(CONTRACT|RULES|DESIGN)\.md\b|shared/spec", re.I)


def update_docs():
    spec = importlib.util.spec_from_file_location("update_docs", REPO / "scripts" / "update_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def builtin_rules() -> list[type]:
    reg = default_registry()
    return [cls for cls in reg.ordered() if reg.is_builtin(cls.code)]


def test_rule_pages_are_current():
    pages = builtin_pages()
    stale = [name for name, text in pages.items()
             if not (RULE_DOCS / name).is_file() or (RULE_DOCS / name).read_text("utf-8") != text]
    extra = sorted(p.name for p in RULE_DOCS.glob("*.md") if p.name not in pages)
    assert not stale and not extra, f"run `python scripts/update_docs.py`: stale {stale}, no rule for {extra}"


def test_readme_sample_report_is_what_the_example_produces():
    module = update_docs()
    readme = (REPO / "README.md").read_text("utf-8")
    assert "<!-- sample:json -->" in readme and "<!-- sample:text -->" in readme
    assert module.render_readme(readme) == readme, "README.md's sample report is stale: run `python scripts/update_docs.py`"
    # And the sample really is the example's report: every violation of it is in the README.
    report = memvet.validate((REPO / "examples" / "output.json").read_text("utf-8"), REPO / "examples" / "context.json")
    for v in report.violations:
        assert f'"code": "{v.code}"' in readme and v.message in readme


def test_every_builtin_rule_page_has_the_four_sections_options_and_fix_safety():
    for cls in builtin_rules():
        page = (RULE_DOCS / f"{cls.code}.md").read_text("utf-8")
        assert page.startswith(f"# {cls.code} `{cls.name}`"), cls.code
        summary, bodies, _ = split_doc(cls)
        for section in SECTIONS:
            assert section in bodies and f"## {section}" in page, (cls.code, section)
        assert "## Options" in page
        for option in cls.Options.model_fields:
            assert f"### `{option}`" in page, (cls.code, option)
        if cls.action == "fix" and fix_safety(cls):
            assert f"| fix | {fix_safety(cls)} |" in page


def test_sarif_help_uri_points_at_an_existing_page_and_descriptions_are_plain_text():
    prefix, suffix = RULE_DOCS_URI.split("{code}")
    for cls in builtin_rules():
        uri = help_uri(cls.code)
        assert uri == f"{prefix}{cls.code}{suffix}"
        path = uri.split("/blob/main/", 1)[1]
        assert (REPO / path).is_file(), uri
        descriptor = sarif_rule(cls.code, cls.name, cls.action, cls.summary())
        text = descriptor["shortDescription"]["text"]
        assert "``" not in text and "**" not in text, (cls.code, text)
        assert "``" not in descriptor["help"]["text"] and descriptor["fullDescription"]["text"]
        assert descriptor["help"]["markdown"].endswith(f"[Examples and options]({uri})")
    assert plain("The ``type`` is **not** known") == "The type is not known"
    assert plain("* ``a`` -- *b*, `c`, 2 * 3") == "* a -- b, c, 2 * 3"  # bullets and products stay


def _help_texts(parser: argparse.ArgumentParser):
    yield parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _help_texts(sub)


def test_no_user_facing_text_cites_the_seeds_or_the_spec_files():
    parser, _ = build_parser()
    offenders = [text[:80] for text in _help_texts(parser) if INTERNAL.search(text)]
    for cls in default_registry().rules.values():
        if INTERNAL.search(cls.__doc__ or ""):
            offenders.append(f"docstring of {cls.code}: {INTERNAL.search(cls.__doc__).group()}")
    for path in [REPO / "README.md", *(REPO / "docs").glob("*.md"), *RULE_DOCS.glob("*.md"),
                 *(REPO / "examples").rglob("*.md")]:
        if path.name not in ("ARCHITECTURE.md",) and INTERNAL.search(path.read_text("utf-8")):
            offenders.append(f"{path.relative_to(REPO)}: {INTERNAL.search(path.read_text('utf-8')).group()}")
    import memvet.testing.cases
    import memvet.testing.docexamples

    for module in (memvet.Report, memvet.testing.cases, memvet.testing.docexamples):
        if INTERNAL.search(module.__doc__ or ""):
            offenders.append(f"{module.__name__}'s docstring")
    assert not offenders, offenders


def test_formats_doc_links_the_schemas_that_ship():
    text = (REPO / "docs" / "formats.md").read_text("utf-8")
    for link in re.findall(r"\]\((\.\./[^)]+)\)", text):
        assert (REPO / "docs" / link).resolve().exists(), link
    for schema in (REPO / "schemas").glob("*.schema.json"):
        assert f"schemas/{schema.name}" in text
    for field in ("line", "column", "value", "fix", "records", "dropped"):
        assert f"`{field}`" in text or f"`violations[].{field}`" in text or f"].{field}`" in text


def test_plugin_guide_documents_the_case_file_format():
    text = (REPO / "docs" / "plugins.md").read_text("utf-8")
    for key in ("kind", "expect", "fixed", "output", "messages", "background", "pool", "known_projects",
                "existing", "context", "config"):
        assert re.search(rf"^\| (`\w+`, )*`{key}`( \||,)", text, re.M), key  # a row of the keys table
    assert "examples/plugin-template/" in text


# --- the plugin template works as it ships ------------------------------------------------------

@pytest.fixture
def template():
    folder = REPO / "examples" / "plugin-template"
    sys.path.insert(0, str(folder))
    try:
        import memvet_yourteam
        yield folder, memvet_yourteam
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("memvet_yourteam", None)


def test_plugin_template_cases_and_doc_examples_pass(template):
    from memvet.registry import build_registry
    from memvet.testing import doc_examples, iter_case_files, run_case, run_doc_example

    folder, plugin = template
    cases = list(iter_case_files(folder / "tests" / "cases"))
    examples = [ex for cls in plugin.memvet_rules() for ex in doc_examples(cls)]
    assert {c.kind for c in cases} == {"pass", "fail"} and len(examples) == 4
    for case in cases:
        run_case(case, plugins=(plugin,))
    for example in examples:
        run_doc_example(example, plugins=(plugin,))
    registry = build_registry(entry_points=False, plugins=(plugin,))
    assert registry.origins["YOUR001"] != "builtin" and registry.problems == []
