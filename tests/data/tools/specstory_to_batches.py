"""Cut a SpecStory chat export (Cursor, VS Code Copilot, Claude Code), or a Cursor "Export Chat"
Markdown file (`**User**` / `**Cursor**`), into memvet batch contexts.

The conversion follows ../shared/corpus/transcripts/README.md so that the new
batches look like the shared ones: user turns -> `user`, the assistant's
visible prose -> `assistant`, every tool block -> one `tool` message (<= 600
chars), hidden think blocks dropped, messages cut at 3,000 chars + `…[cut]`.

Usage:
    python specstory_to_batches.py dump SOURCE.md            # list messages with ids
    python specstory_to_batches.py build SPEC.json SOURCE.md # write batch-NN.json files

SOURCE.md is the export as fetched (e.g. `git show COMMIT:PATH` of the source
repository named in SPEC.json); it is not kept in this repository.

SPEC.json: {"repo", "path", "commit", "licence": provenance, "sessionKey": str, "out": dir,
            "firstUserTime": "2025-04-26T20:30:00Z" | null,
            "knownProjects": [...],
            "batches": [{"new": [first, last], "background": [first, last] | null,
                         "scenePool": [{"id", "label"}]}]}
"""
from __future__ import annotations

import json
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

MESSAGE_CAP = 3000
TOOL_CAP = 600
CUT = "…[cut]"

# SpecStory v2.1 (Claude Code provider, 2026) stamps user turns to the second: `(2026-06-29 18:33:08Z)`.
# Cursor's own "Export Chat" writes `**User**` / `**Cursor**` between the same `---` rules (no tool
# blocks, no times); only those two exact lines are headers there, not any bold line.
USER_HEADER = re.compile(r"^(?:_\*\*User(?: \((\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?)Z\))?\*\*_|\*\*User\*\*)\s*$")
ASSISTANT_HEADER = re.compile(r"^(?:_\*\*(?:Assistant|Agent)\b.*\*\*_|\*\*Cursor\*\*)\s*$")
THINK = re.compile(r"<think>.*?</think>", re.S)
TAG = re.compile(r"</?(?:tool-use|details|summary)\b[^>]*>")


def _cut(text: str, cap: int) -> str:
    return text if len(text) <= cap else text[: cap - len(CUT)] + CUT


def _is_tool_section(section: str) -> bool:
    head = section.lstrip()
    # Tool blocks of both SpecStory generations: <tool-use …>, <details> listings,
    # and the older bare ```bash / ```diff / "### Rule:" sections between `---` rules.
    # Copilot's emptied edit fences (```` ```` ````) open prose and stay in it.
    return head.startswith(("<tool-use", "<details", "```bash", "```diff", "### Rule:", "Tool use:"))


def _tool_text(section: str) -> str:
    text = THINK.sub("", section)
    summary = re.search(r"<summary>(.*?)</summary>", text, re.S)
    command = re.search(r"Run command: (.*)$", " ".join(summary.group(1).split())) if summary else None
    if command:
        # A bash block that only repeats the command of the summary is left out.
        text = text.replace(f"```bash\n{command.group(1)}\n```", "", 1)
    # Tags go, their text stays in place; whitespace-only lines left by the HTML go too.
    lines = [TAG.sub("", line).strip() if TAG.search(line) else line.rstrip() for line in text.splitlines()]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    first, _, rest = text.partition("\n")
    if len(first) > 240:
        # A long command line is shortened first, so that some of its output stays.
        text = _cut(first, 240) + ("\n" + rest if rest else "")
    return _cut(text, TOOL_CAP)


def _epoch_ms(stamp: str) -> int:
    fmt = "%Y-%m-%d %H:%M:%S" if stamp.count(":") == 2 else "%Y-%m-%d %H:%M"
    return int(datetime.strptime(stamp, fmt).replace(tzinfo=timezone.utc).timestamp() * 1000)


def _split_sections(text: str) -> list[str]:
    """Split on the export's `---` rules, but never inside a code fence or a
    <tool-use> block (shell output such as `echo "---"` is not a rule)."""
    sections, current = [], []
    fence = False
    depth = 0
    think = 0  # open <think> blocks: a `---` inside one (Copilot 2026 exports) is not a rule
    for line in text.split("\n"):
        if USER_HEADER.match(line) or ASSISTANT_HEADER.match(line):
            # A turn header always opens a section: an unclosed fence in a
            # pasted log must not swallow the rest of the session.
            sections.append("\n".join(current))
            current, fence, depth, think = [line], False, 0, 0
            continue
        if line.startswith("```") and not (len(line) > 6 and line.rstrip().endswith("```")):
            fence = not fence
        if not fence:
            depth += line.count("<tool-use") - line.count("</tool-use>")
        think += line.count("<think>") - line.count("</think>")
        if line == "---" and not fence and depth <= 0 and think <= 0:
            sections.append("\n".join(current))
            current = []
            depth = 0
        else:
            current.append(line)
    sections.append("\n".join(current))
    return sections


def parse(source: Path) -> list[dict]:
    """Return [{role, content, timestamp}] in session order (no ids yet)."""
    text = source.read_text(encoding="utf-8")
    text = re.sub(r"^<!--.*?-->\s*$", "", text, flags=re.M)
    sections = _split_sections(text)
    messages: list[dict] = []
    role = None
    prose: list[str] = []
    turn_start = 0  # index of the first message of the current assistant turn

    def flush_prose() -> None:
        if prose:
            messages.append({"role": "assistant", "content": _cut("\n\n".join(prose), MESSAGE_CAP), "timestamp": None})
            prose.clear()

    def close_turn() -> None:
        flush_prose()
        if role == "assistant" and len(messages) == turn_start:
            # The model returned nothing (the user pressed on): kept as an empty turn.
            messages.append({"role": "assistant", "content": "", "timestamp": None})

    for raw in sections:
        section = raw.strip("\n")
        if not section.strip():
            continue
        first = section.strip().splitlines()[0] if section.strip() else ""
        user = USER_HEADER.match(first)
        if user:
            close_turn()
            body = section.strip().split("\n", 1)[1].strip() if "\n" in section.strip() else ""
            messages.append({"role": "user", "content": _cut(body, MESSAGE_CAP),
                             "timestamp": _epoch_ms(user.group(1)) if user.group(1) else None})
            role = "user"
            continue
        if ASSISTANT_HEADER.match(first):
            if role != "assistant":
                # Claude Code exports repeat the agent header after every think
                # block; only the first header of a run opens a new turn.
                close_turn()
                role = "assistant"
                turn_start = len(messages)
            section = section.strip().split("\n", 1)[1] if "\n" in section.strip() else ""
        if role is None:
            continue  # title block before the first turn
        if role == "user":
            # A user turn spread over several `---` sections stays one message.
            messages[-1]["content"] = _cut(messages[-1]["content"] + "\n\n---\n\n" + section.strip(), MESSAGE_CAP)
            continue
        visible = THINK.sub("", section).strip()
        if not visible:
            continue  # a dropped think block joins the prose around it
        if _is_tool_section(visible):
            flush_prose()
            messages.append({"role": "tool", "content": _tool_text(visible), "timestamp": None})
        else:
            prose.append(visible)
    close_turn()
    return messages


def dump(source: Path, parse_export=None) -> None:
    for n, m in enumerate((parse_export or parse)(source), 1):
        stamp = m["timestamp"] or ""
        print(f"m{n} {m['role']:9} {len(m['content']):5} {stamp} | {m['content'][:150]!r}")


def build(spec_path: Path, source: Path, parse_export=None) -> None:
    """parse_export: the export parser (default: the SpecStory one; aider_to_batches passes its own)."""
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    base = spec_path.parent
    messages = (parse_export or parse)(source)
    if spec.get("firstUserTime"):
        first_user = next(m for m in messages if m["role"] == "user")
        if first_user["timestamp"] is None:
            first_user["timestamp"] = int(datetime.fromisoformat(spec["firstUserTime"].replace("Z", "+00:00")).timestamp() * 1000)
    known = [m["timestamp"] for m in messages if m["timestamp"] is not None]
    # A Cursor "Export Chat" file has no turn times; with no firstUserTime either, nothing is known.
    recorded_at = max(known) + 3600_000 if known else None
    session = spec["sessionKey"]
    shaped = [
        {"id": f"m{n}", "sessionKey": session, "role": m["role"], "content": m["content"],
         "timestamp": m["timestamp"], "recordedAt": recorded_at}
        for n, m in enumerate(messages, 1)
    ]
    out = Path(spec["out"]) if Path(spec["out"]).is_absolute() else base / spec["out"]
    out.mkdir(parents=True, exist_ok=True)
    for i, batch in enumerate(spec["batches"], 1):
        lo, hi = batch["new"]
        bg = batch.get("background")
        context = {
            "messages": shaped[lo - 1: hi],
            "background": shaped[bg[0] - 1: bg[1]] if bg else [],
            "scenePool": batch.get("scenePool", []),
            "knownProjects": spec["knownProjects"],
        }
        (out / f"batch-{i:02d}.json").write_text(json.dumps(context, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        print(f"{out.name}/batch-{i:02d}.json new m{lo}-m{hi} ({hi - lo + 1}) bg {bg}")


if __name__ == "__main__":
    verb = sys.argv[1]
    if verb == "dump":
        dump(Path(sys.argv[2]))
    else:
        build(Path(sys.argv[2]), Path(sys.argv[3]))
