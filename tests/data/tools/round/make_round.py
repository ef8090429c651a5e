#!/usr/bin/env python3
"""Build the folders of one labelling round: the answerer's prompts and the labeller's folder.

A round adds sessions to ``tests/data/check`` without anyone seeing memvet's findings before it is
measured (``README.md`` beside this file says who sees what). This script does the two mechanical
steps between the helpers:

    python tests/data/tools/round/make_round.py prompts TRANSCRIPTS OUT
        every TRANSCRIPTS/<session>/batch-NN.json rendered as the extractor would send it
        (``memvet extract BATCH --dry-run``) into OUT/<session>/batch-NN.txt: all the answerer sees;

    python tests/data/tools/round/make_round.py avoid OUT
        the collectors' exclusion list OUT: every ``owner/name`` that the READMEs of tests/data/* and
        ../shared/corpus/* name (used or left out) and every repository of a spec of tests/data/*;

    python tests/data/tools/round/make_round.py label-dir TRANSCRIPTS ANSWERS OUT [--session S]
        the labeller's folder OUT: the seeds and CONTRACT.md/RULES.md from ../shared, the label
        conventions (../shared/corpus/real/README.md), one labelled example from tests/data/check,
        the batches, the answers and ``check.py`` (``check_answers.py``: facts, no findings).
        With ``--session``, only that session's batches and answers (one labeller per session).

Then fill in ``answerer.md`` and ``labeller.md`` of this folder for the helpers.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
SHARED = ROOT.parent / "shared"
#: The example every labeller sees: a labelled answer of another session.
EXAMPLE = ("gryag-image-generation-tool", "batch-01", "quick")


def sessions(transcripts: Path) -> list[Path]:
    found = sorted(p for p in transcripts.iterdir() if p.is_dir() and any(p.glob("batch-*.json")))
    if not found:
        raise SystemExit(f"{transcripts}: no <session>/batch-NN.json")
    return found


def render_prompts(transcripts: Path, out: Path, memvet: str = "memvet") -> list[Path]:
    """``memvet extract BATCH --dry-run`` of every batch; the files written."""
    written = []
    for session in sessions(transcripts):
        for batch in sorted(session.glob("batch-*.json")):
            target = out / session.name / f"{batch.stem}.txt"
            target.parent.mkdir(parents=True, exist_ok=True)
            run = subprocess.run([memvet, "extract", str(batch), "--dry-run"], capture_output=True, text=True)
            if run.returncode != 0:
                raise SystemExit(f"{batch}: memvet extract --dry-run failed: {run.stderr.strip()}")
            target.write_text(run.stdout, encoding="utf-8")
            written.append(target)
    return written


#: ``owner/name`` as a README writes it (a full stop after it ends the sentence, not the name).
_REPO = re.compile(r"(?<![\w./-])[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9_-]")
#: A link to a repository: what follows it is ``owner/name``.
_GITHUB_URL = re.compile(r"(?:https?://)?(?:www\.)?github\.com/")
#: Path-like matches that are no repository (folders of this checkout and of the exports).
_NOT_REPOS = {"tests", "tools", "src", "docs", "spec", "specs", "seeds", "corpus", "labels", "answers",
              "transcripts", "history", "scripts", "benchmarks", "rules", "validators", "app", "lib", "and", "or"}


def avoid_list(data: Path = ROOT / "tests" / "data", shared: Path = SHARED) -> list[str]:
    """Every repository a round must not take again, sorted case-insensitively (one per line in the file).

    The READMEs name the sessions used and the candidates left out; a spec names its repository
    (``repo``) even where a README spells it differently. Over-inclusion is harmless: a collector only
    skips a name that is no repository.
    """
    names: dict[str, str] = {}
    for readme in [*data.glob("*/README.md"), *(shared / "corpus").glob("*/README.md")]:
        text = _GITHUB_URL.sub(" ", readme.read_text(encoding="utf-8"))
        for name in _REPO.findall(text):
            if name.split("/", 1)[0].lower() not in _NOT_REPOS and re.search(r"[A-Za-z]", name):
                names.setdefault(name.lower(), name)
    for spec in data.glob("*/tools/specs/*.json"):
        repo = json.loads(spec.read_text(encoding="utf-8")).get("repo")
        if isinstance(repo, str) and "/" in repo:
            names.setdefault(repo.lower(), repo)
    return [names[k] for k in sorted(names)]


def label_dir(transcripts: Path, answers: Path, out: Path, shared: Path = SHARED,
              check_set: Path = ROOT / "tests" / "data" / "check", session: str | None = None) -> Path:
    """The labeller's folder ``out`` (new or empty); raises SystemExit naming what is missing.

    ``session``: only that session (a labeller sees one session, not the round's others)."""
    needed = [shared / "seeds", shared / "spec" / "CONTRACT.md", shared / "spec" / "RULES.md",
              shared / "corpus" / "real" / "README.md"]
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        raise SystemExit(f"missing: {', '.join(missing)}")
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out}: exists and is not empty (a labeller's work may be in it)")
    chosen = sessions(transcripts)
    if session is not None:
        chosen = [s for s in chosen if s.name == session]
        if not chosen:
            raise SystemExit(f"{transcripts}: no session {session!r}")
    (out / "spec").mkdir(parents=True)
    shutil.copytree(shared / "seeds", out / "seeds")
    for name in ("CONTRACT.md", "RULES.md"):
        shutil.copy(shared / "spec" / name, out / "spec" / name)
    shutil.copy(shared / "corpus" / "real" / "README.md", out / "LABEL_CONVENTIONS.md")
    example, batch, variant = EXAMPLE
    (out / "example").mkdir()
    shutil.copy(check_set / "transcripts" / example / f"{batch}.json", out / "example" / "batch.json")
    shutil.copy(check_set / "answers" / example / f"{batch}.{variant}.txt", out / "example" / "answer.txt")
    shutil.copy(check_set / "labels" / example / f"{batch}.{variant}.json", out / "example" / "label.json")
    for s in chosen:
        given = sorted((answers / s.name).glob("batch-*.txt"))
        if not given:
            raise SystemExit(f"{answers / s.name}: no answers for session {s.name}")
        shutil.copytree(s, out / "batches" / s.name)
        (out / "answers" / s.name).mkdir(parents=True)
        for answer in given:
            shutil.copy(answer, out / "answers" / s.name / answer.name)
        (out / "out" / s.name).mkdir(parents=True)
    shutil.copy(HERE / "check_answers.py", out / "check.py")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prompts", help="render every batch as the answerer sees it")
    p.add_argument("transcripts", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--memvet", default="memvet", help="the memvet command (default: memvet on PATH)")
    l = sub.add_parser("label-dir", help="assemble the labeller's folder")  # noqa: E741
    l.add_argument("transcripts", type=Path)
    l.add_argument("answers", type=Path)
    l.add_argument("out", type=Path)
    l.add_argument("--session", help="only this session (one labeller per session)")
    v = sub.add_parser("avoid", help="write the collectors' exclusion list")
    v.add_argument("out", type=Path)
    a = ap.parse_args(argv)
    if a.command == "prompts":
        print(f"{len(render_prompts(a.transcripts, a.out, a.memvet))} prompts in {a.out}")
    elif a.command == "avoid":
        names = avoid_list()
        a.out.write_text("".join(n + "\n" for n in names), encoding="utf-8")
        print(f"{len(names)} repositories in {a.out}")
    else:
        print(f"labelling folder: {label_dir(a.transcripts, a.answers, a.out, session=a.session)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
