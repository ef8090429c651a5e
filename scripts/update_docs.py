"""Regenerate the generated parts of the docs from the code: run after changing a rule or a format.

    python scripts/update_docs.py          # rewrite docs/rules/ and README.md's sample report
    python scripts/update_docs.py --check  # exit 1 when something is stale (tests/cli/test_docs.py does this)

The README's sample report is what ``memvet check examples/output.json
--context examples/context.json`` really prints (text and ``--format json``),
between the ``<!-- sample:NAME -->`` / ``<!-- /sample:NAME -->`` markers.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import memvet
from memvet.formats import format_text
from memvet.rule_docs import stale, write_pages

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
RULE_DOCS = REPO / "docs" / "rules"
_BLOCK = re.compile(r"(<!-- sample:(?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- /sample:(?P=name) -->)", re.S)


def samples() -> dict[str, str]:
    """Marker name -> the block's content, computed from the bundled example."""
    here = Path.cwd()
    os.chdir(REPO)  # the paths in the report read as a user who runs the README's command sees them
    try:
        raw = Path("examples/output.json").read_text("utf-8")
        report = memvet.validate(raw, "examples/context.json")
        text = format_text(report, source="examples/output.json")
    finally:
        os.chdir(here)
    return {
        "text": f"```text\n$ memvet check examples/output.json --context examples/context.json\n{text}\n```\n",
        "json": f"```json\n{report.to_json()}\n```\n",
    }


def render_readme(text: str) -> str:
    blocks = samples()

    def fill(m: re.Match[str]) -> str:
        name = m.group("name")
        if name not in blocks:
            raise SystemExit(f"README.md: unknown sample block {name!r}")
        return m.group(1) + blocks[name] + m.group(4)

    return _BLOCK.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    current = README.read_text("utf-8")
    wanted = render_readme(current)
    if args.check:
        bad = stale(RULE_DOCS) + (["README.md"] if wanted != current else [])
        for name in bad:
            print(f"stale: {name}", file=sys.stderr)
        return 1 if bad else 0
    README.write_text(wanted, "utf-8")
    count = write_pages(RULE_DOCS)
    print(f"README.md and {count} pages in {RULE_DOCS.relative_to(REPO)} are current")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
