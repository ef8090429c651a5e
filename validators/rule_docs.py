"""Rule documentation: ``memvet rule CODE`` and the pages under ``docs/rules/``.

Both come from the same place -- the rule's docstring (*What it does* /
*Why is this bad?* / *Example* / *Use instead*, and a ``Fix: safe|unsafe``
line where the rule fixes) and its ``Options`` model -- so the terminal, the
pages and SARIF's ``helpUri`` never tell different stories.

Regenerate the pages after changing a rule (a test fails while they are stale)::

    python -m memvet.rule_docs docs/rules          # write
    python -m memvet.rule_docs docs/rules --check  # exit 1 when a page is stale
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .registry import default_registry

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")
_HEADER = re.compile(r"^(What it does|Why is this bad\?|Example|Use instead):?\s*$")
_FIX = re.compile(r"\bFix:\s*(safe|unsafe)\b")
_ACTIONS = {"reject": "reject (the answer must be asked again)", "drop": "drop (the memory is left out)",
            "fix": "fix (memvet corrects the output)", "warn": "warn (advisory)"}
FAMILIES = {"S": "shape", "P": "privacy", "I": "identity", "T": "typed", "Q": "quality", "L": "language",
            "G": "gates", "M": "method", "W": "write", "E": "engine"}


def split_doc(cls: type) -> tuple[str, dict[str, str], str]:
    """``(summary, {section: body}, preamble)`` of a rule's docstring; bodies are dedented."""
    doc = inspect.cleandoc(cls.__doc__ or "")
    lines = doc.splitlines()
    summary = lines[0].strip() if lines else cls.name
    parts: dict[str, list[str]] = {}
    preamble: list[str] = []
    current: list[str] = preamble
    for line in lines[1:]:
        m = _HEADER.match(line)
        if m:
            current = parts.setdefault(m.group(1), [])
            continue
        current.append(line)
    bodies = {name: textwrap.dedent("\n".join(body)).strip() for name, body in parts.items()}
    return summary, bodies, textwrap.dedent("\n".join(preamble)).strip()


def fix_safety(cls: type) -> str | None:
    m = _FIX.search(cls.__doc__ or "")
    return m.group(1) if m else None


def _option_rows(options: BaseModel | type[BaseModel]) -> list[tuple[str, Any, str | None]]:
    model = options if isinstance(options, type) else type(options)
    rows = []
    for name, field in model.model_fields.items():
        value = field.get_default(call_default_factory=True) if isinstance(options, type) else getattr(options, name)
        rows.append((name, value, field.description))
    return rows


def _json(value: Any) -> str:
    if isinstance(value, BaseModel):
        value = value.model_dump()
    return json.dumps(value, ensure_ascii=False)


def rule_text(cls: type, origin: str, options: BaseModel, action: str, source: str | None) -> str:
    """What ``memvet rule`` prints: the docstring, then every option's value as configured, in full."""
    out = [f"{cls.code} {cls.name} (action: {action}; default action: {cls.action}; target: {cls.target}; "
           f"from {origin})", "", inspect.cleandoc(cls.__doc__ or "(no documentation)")]
    rows = _option_rows(options)
    if rows:
        where = f"as configured in {source}" if source else "defaults; no config file found"
        # A memvet.toml holds the [tool.memvet] table itself: its rule tables are [rules.CODE].
        table = f"rules.{cls.code}" if source and Path(source).name == "memvet.toml" else f"tool.memvet.rules.{cls.code}"
        out += ["", f"Options ({where}; set them under [{table}]):"]
        defaults = {name: value for name, value, _ in _option_rows(type(options))}
        for name, value, description in rows:
            mark = "" if value == defaults.get(name) else "    # configured; default: " + _json(defaults.get(name))
            out.append(f"    {name} = {_json(value)}{mark}")
            if description:
                out.append(f"        {description}")
    return "\n".join(out)


def rule_page(cls: type, origin: str) -> str:
    """The markdown page ``docs/rules/<CODE>.md`` of one rule."""
    summary, bodies, preamble = split_doc(cls)
    family = FAMILIES.get(cls.code[:1], "plugin")
    out = [f"# {cls.code} `{cls.name}`", "", summary, "",
           "| | |", "|---|---|",
           f"| family | {cls.code[:1]} (`{family}`) |",
           f"| default action | {_ACTIONS.get(cls.action, cls.action)} |",
           f"| looks at | {cls.target} |"]
    types = getattr(cls, "types", None)
    if types:
        out.append(f"| memory types | {', '.join(sorted(types))} |")
    safety = fix_safety(cls)
    if safety:
        out.append(f"| fix | {safety} |")
    if getattr(cls, "reads_prose", False):
        out.append("| languages | judged in the languages its word lists read; elsewhere its findings only warn "
                   "(low confidence) |")
    out.append(f"| module | `{origin}` |")
    if preamble:
        out += ["", preamble]
    for name in SECTIONS:
        if name in bodies:
            out += ["", f"## {name.rstrip(':')}", "", bodies[name]]
    rows = _option_rows(cls.Options)
    out += ["", "## Options", ""]
    if rows:
        out += [f"Set under `[tool.memvet.rules.{cls.code}]`; `memvet rule {cls.code}` shows the values in effect.", ""]
        for name, value, description in rows:
            out += [f"### `{name}`", ""]
            if description:
                out += [description, ""]
            out += ["Default:", "", "```json", json.dumps(value if not isinstance(value, BaseModel) else value.model_dump(),
                                                      ensure_ascii=False, indent=2), "```", ""]
        out.pop()
    else:
        out.append("None.")
    out += ["", f"Change its action with `actions = {{ {cls.code} = \"warn\" }}`, or turn it off with "
                f"`ignore = [\"{cls.code}\"]` (or `--ignore {cls.code}`).", ""]
    return "\n".join(out)


def index_page(classes: list[type]) -> str:
    out = ["# memvet rules", "",
           "One page per built-in rule, generated from the rule's docstring and options "
           "(`python -m memvet.rule_docs docs/rules`). `memvet rules` lists them with the actions in effect.", "",
           "| code | name | default action | summary |", "|---|---|---|---|"]
    for cls in classes:
        summary = split_doc(cls)[0].replace("|", "\\|")
        out.append(f"| [{cls.code}]({cls.code}.md) | `{cls.name}` | {cls.action} | {summary} |")
    return "\n".join(out) + "\n"


def builtin_pages() -> dict[str, str]:
    """File name -> content of every page (built-in rules only; plugins document themselves)."""
    reg = default_registry()
    classes = [cls for cls in reg.ordered() if reg.is_builtin(cls.code)]
    pages = {f"{cls.code}.md": rule_page(cls, cls.origin()) for cls in classes}
    pages["README.md"] = index_page(classes)
    return pages


def stale(folder: Path) -> list[str]:
    """Pages that differ from what the rules say, are missing, or belong to no rule."""
    pages = builtin_pages()
    bad = [name for name, text in pages.items()
           if not (folder / name).is_file() or (folder / name).read_text("utf-8") != text]
    bad += sorted(p.name for p in folder.glob("*.md") if p.name not in pages)
    return bad


def write_pages(folder: Path) -> int:
    """Write every built-in rule's page into ``folder`` (and remove pages of rules that are gone)."""
    folder.mkdir(parents=True, exist_ok=True)
    pages = builtin_pages()
    for old in folder.glob("*.md"):
        if old.name not in pages:
            old.unlink()
    for name, text in pages.items():
        (folder / name).write_text(text, "utf-8")
    return len(pages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memvet.rule_docs", description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default="docs/rules")
    parser.add_argument("--check", action="store_true", help="exit 1 when a page is stale instead of writing")
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    if args.check:
        bad = stale(folder)
        for name in bad:
            print(f"stale: {folder / name}", file=sys.stderr)
        return 1 if bad else 0
    print(f"wrote {write_pages(folder)} pages to {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
