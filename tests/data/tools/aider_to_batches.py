"""Cut an aider `.aider.chat.history.md` into memvet batch contexts.

Same rules as specstory_to_batches.py and ../shared/corpus/transcripts/README.md:
`#### ` lines are the user's turn (joined line by line), `> ` status lines and each
`# aider chat started at …` header become one `tool` message per run, the rest is
the assistant's prose. The start time of a run is given to the first user
message after it (local time without zone, read as UTC).

Usage:
    python aider_to_batches.py dump SOURCE.md
    python aider_to_batches.py build SPEC.json SOURCE.md
"""
from __future__ import annotations

import re
import sys
from datetime import datetime, timezone
from pathlib import Path

from specstory_to_batches import CUT, MESSAGE_CAP, TOOL_CAP, build, dump

STARTED = re.compile(r"^# (aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}))\s*$")


def _cut(text: str, cap: int) -> str:
    return text if len(text) <= cap else text[: cap - len(CUT)] + CUT


def _kind(line: str, fence: bool) -> str:
    if fence:
        return "assistant"
    if STARTED.match(line):
        return "tool"
    if line.startswith("#### ") or line == "####":
        return "user"
    if line.startswith("> ") or line == ">":
        return "tool"
    return "assistant"


def parse(source: Path) -> list[dict]:
    messages: list[dict] = []
    kind, lines = None, []
    pending_time = None
    fence = False

    def flush() -> None:
        nonlocal pending_time
        if kind is None:
            return
        text = "\n".join(lines).strip()
        if not text and kind != "user":
            return
        stamp = None
        if kind == "user" and pending_time is not None:
            stamp, pending_time = pending_time, None
        cap = TOOL_CAP if kind == "tool" else MESSAGE_CAP
        messages.append({"role": kind, "content": _cut(text, cap), "timestamp": stamp})

    previous = ""
    for raw in source.read_text(encoding="utf-8").split("\n"):
        line = raw.rstrip()
        if fence and (STARTED.match(line) or (line.startswith("#### ") and not previous)):
            # A reply cut off by the model's output limit leaves its fence open (and "```ruby"
            # written where "```" should close one flips the parity): a new aider run, or a user
            # line after a blank one, closes it -- otherwise the rest of the log reads as one reply.
            fence = False
        previous = line
        this = _kind(line, fence)
        if this == "assistant" and not line and kind in ("user", "tool"):
            this = kind  # a blank line does not end a user or status run by itself
        elif this == "assistant" and kind == "tool" and lines and lines[-1]:
            # Markdown lazy continuation: aider echoes a multi-line shell command
            # as "> first line" followed by bare lines; they stay in the status run.
            this = "tool"
        if this != kind or (this == "tool" and STARTED.match(line)):
            # A new aider run always opens its own status message.
            flush()
            kind, lines = this, []
        started = STARTED.match(line) if not fence else None
        if started:
            when = datetime.strptime(started.group(2), "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)
            pending_time = int(when.timestamp() * 1000)
            lines.append(started.group(1))
        elif this == "user":
            lines.append(line[5:] if line.startswith("#### ") else "")
        elif this == "tool":
            lines.append(line[2:] if line.startswith("> ") else line[1:] if line == ">" else line)
        else:
            if line.startswith("```"):
                fence = not fence
            lines.append(line)
    flush()
    return messages


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(Path(sys.argv[2]), parse)
    else:
        build(Path(sys.argv[2]), Path(sys.argv[3]), parse)
