"""Move the cases of family/topic case files into one file per rule code.

    python tests/rules/split_cases.py            # tests/cases/*.yaml -> tests/rules/<CODE>.yaml
    python tests/rules/split_cases.py --check    # say what would move, write nothing

Every case of ``tests/cases/*.yaml`` goes to ``tests/rules/<CODE>.yaml`` where
CODE is the case's own ``rule:`` override or else its file's ``rule:``; the
override line is dropped (the file names the rule now). Cases are moved as
TEXT, so their comments and layout stay; a case file that already exists gets
the new cases appended. Section headers (``  # --- I002 name ---``) and the
family files' top comments are left behind: they described the family file.

Before anything is written the script proves that nothing is lost or changed:
the cases loaded by ``memvet.testing.load_cases`` from the sources plus the
existing per-code files equal, as a multiset (name, rule, kind, context,
output, expect, fixed, config), the cases loaded from the new per-code files;
a case name used twice for one code is an error. Only then are the new files
written and the source files deleted (commit the result with ``git add -A
tests/cases tests/rules``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

from memvet.testing import load_cases

HERE = Path(__file__).resolve().parent
SOURCES = HERE.parent / "cases"

_CASE_START = re.compile(r"^  [^\s#][^:]*:")
_RULE_OVERRIDE = re.compile(r"^    rule:\s*['\"]?([A-Z]+\d{3})['\"]?\s*(#.*)?$")
_SECTION_HEADER = re.compile(r"^\s*# -{2,}\s*[A-Z]+\d{3}\b")
_TOP_RULE = re.compile(r"^rule:\s*['\"]?([A-Z]+\d{3})['\"]?\s*(#.*)?$")


class SplitError(Exception):
    pass


class _UniqueKeyLoader(yaml.SafeLoader):
    """safe_load keeps the last of two equal keys silently; a case lost that way must be an error."""


def _mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False):
    keys = [loader.construct_object(k, deep=deep) for k, _ in node.value]
    twice = sorted({str(k) for k in keys if keys.count(k) > 1})
    if twice:
        raise SplitError(f"line {node.start_mark.line + 1}: key(s) given twice: {', '.join(twice)}")
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def _check_unique_keys(path: Path) -> None:
    try:
        yaml.load(path.read_text("utf-8"), Loader=_UniqueKeyLoader)
    except SplitError as err:
        raise SplitError(f"{path}: {err}") from None


def _fingerprint(case) -> str:
    return json.dumps([case.rule, case.name, case.kind, case.context, case.output, case.expect, case.fixed,
                       case.has_fixed, case.config], sort_keys=True, ensure_ascii=False)


def _blocks(path: Path) -> tuple[str, list[tuple[str, list[str]]]]:
    """The file's rule and its cases as (name, lines), each with the comments just above it."""
    lines = path.read_text("utf-8").splitlines()
    top = [i for i, line in enumerate(lines) if _TOP_RULE.match(line)]
    start = [i for i, line in enumerate(lines) if line.rstrip() == "cases:"]
    if len(top) > 1 or len(start) != 1 or (top and top[0] > start[0]):
        raise SplitError(f"{path}: expected at most one top-level 'rule: CODE' line, then 'cases:'")
    if any(line.strip() and not line.startswith("#") for line in lines[:start[0]] if not _TOP_RULE.match(line)):
        raise SplitError(f"{path}: only 'rule:' and comments may come before 'cases:'")
    rule = _TOP_RULE.match(lines[top[0]]).group(1) if top else ""  # then every case names its rule
    body = lines[start[0] + 1:]
    if any(line.strip() and not line.startswith("  ") for line in body):
        raise SplitError(f"{path}: a line after 'cases:' is not indented under it")
    blocks: list[tuple[str, list[str]]] = []
    pending: list[str] = []  # comments and blank lines: they belong to the case that follows
    for line in body:
        if _CASE_START.match(line):
            blocks.append((line.split(":", 1)[0].strip(), pending + [line]))
            pending = []
        elif blocks and line.startswith("   ") :
            blocks[-1][1].extend(pending + [line])
            pending = []
        else:
            pending.append(line)
    return rule, blocks


def _clean(lines: list[str]) -> tuple[str | None, list[str]]:
    """Drop section headers, surrounding blank lines and the ``rule:`` override; return the override."""
    override = None
    out = []
    for line in lines:
        m = _RULE_OVERRIDE.match(line)
        if m:
            override = m.group(1)
        elif not _SECTION_HEADER.match(line):
            out.append(line)
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return override, out


def plan(sources: list[Path], dest: Path, *, replace: bool = False) -> dict[Path, str]:
    """The new text of every per-code file that changes, checked against the loaded cases.

    A moved case whose name the per-code file already has is an error, or with
    ``replace`` takes the old case's place (e.g. a branch changed a case of a
    family file that was split meanwhile: check out its version of the family
    file and move it again with ``--replace``).
    """
    moved: dict[str, list[tuple[str, str]]] = {}
    for path in sources:
        _check_unique_keys(path)
        rule, blocks = _blocks(path)
        if len(blocks) != len(load_cases(path)):
            raise SplitError(f"{path}: found {len(blocks)} case blocks but the loader reads "
                             f"{len(load_cases(path))} cases (unusual layout: move them by hand)")
        for name, lines in blocks:
            override, lines = _clean(lines)
            if not (override or rule):
                raise SplitError(f"{path}: case {name!r} names no rule and the file has no 'rule:'")
            moved.setdefault(override or rule, []).append((name, "\n".join(lines)))
    texts: dict[Path, str] = {}
    expected: Counter[str] = Counter(_fingerprint(c) for path in sources for c in load_cases(path))
    for code, chunks in sorted(moved.items()):
        target = dest / f"{code}.yaml"
        kept: dict[str, str] = {}
        if target.exists():
            _check_unique_keys(target)
            text = target.read_text("utf-8")
            head = text[:text.index("\ncases:") + len("\ncases:")]
            kept = {name: "\n".join(_clean(lines)[1]) for name, lines in _blocks(target)[1]}
            replaced = {name for name, _ in chunks} & kept.keys()
            if replaced and not replace:
                raise SplitError(f"{target.name} already has case(s) {sorted(replaced)} (use --replace)")
            expected.update(_fingerprint(c) for c in load_cases(target) if c.name not in replaced)
        else:
            head = (f"# Cases for {code}: each runs with only {code} on (tests/rules/test_rule_cases.py).\n"
                    f"# Format: docs/plugins.md, \"Case files\".\nrule: {code}\ncases:")
        seen: set[str] = set()
        for name, chunk in chunks:
            if name in seen:
                raise SplitError(f"case {code}:{name} is given twice in the sources")
            seen.add(name)
            kept[name] = chunk
        texts[target] = head + "\n" + "\n".join(kept.values()) + "\n"
    _verify(expected, texts)
    return texts


def _verify(expected: Counter[str], texts: dict[Path, str]) -> None:
    after: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for path, text in texts.items():
            draft = Path(tmp) / path.name
            draft.write_text(text, "utf-8")
            _check_unique_keys(draft)
            cases = load_cases(draft)
            wrong = [c.name for c in cases if c.rule != path.stem]
            if wrong:
                raise SplitError(f"{path.name}: cases for another rule: {wrong}")
            if yaml.safe_load(text).get("rule") != path.stem or any(
                    "rule" in spec for spec in yaml.safe_load(text)["cases"].values()):
                raise SplitError(f"{path.name}: a case still overrides 'rule:'")
            after.update(_fingerprint(c) for c in cases)
    if expected != after:
        lost, new = expected - after, after - expected
        raise SplitError(f"the split would change cases: {sum(lost.values())} lost/changed, "
                         f"{sum(new.values())} new/changed; first: {next(iter(lost or new))[:300]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="verify and report, write nothing")
    parser.add_argument("--replace", action="store_true",
                        help="a moved case replaces the per-code file's case of the same name")
    parser.add_argument("--sources", type=Path, default=SOURCES)
    parser.add_argument("--dest", type=Path, default=HERE)
    args = parser.parse_args(argv)
    sources = sorted(p for p in args.sources.glob("*") if p.suffix in (".yaml", ".yml", ".json"))
    if any(p.suffix == ".json" for p in sources):
        print("split_cases: JSON case files are not moved by this script; convert them to YAML", file=sys.stderr)
        return 2
    try:
        texts = plan(sources, args.dest, replace=args.replace)
    except SplitError as err:
        print(f"split_cases: {err}", file=sys.stderr)
        return 2
    count = sum(len(load_cases(p)) for p in sources)
    print(f"{count} cases from {len(sources)} file(s) -> {len(texts)} per-code file(s), verified")
    if args.check:
        return 0
    for path, text in texts.items():
        path.write_text(text, "utf-8")
    for path in sources:
        path.unlink()
    if args.sources.is_dir() and not any(args.sources.iterdir()):
        args.sources.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main())
