"""Round 2 of issue 11: fence info strings name written files; a user's own words vs what they pasted."""

from __future__ import annotations

import pytest

from memvet.batchfacts import _block_files
from memvet.rules._sources import user_prose


@pytest.mark.parametrize("fence, expected", [
    ("```css:app/static/css/style.css", ("app/static/css/style.css",)),
    ("```python path=src/app.py", ("src/app.py",)),
    ("```src/app.py", ("src/app.py",)),
    ("```markdown:notes/plans/e2e.md", ("notes/plans/e2e.md",)),
    ("```python", ()),       # a language names no file: an example, not a write
    ("```bash", ()),
    ("```", ()),
])
def test_fence_info_names_the_file_written(fence, expected):
    assert _block_files(f"Here is the change:\n\n{fence}\nx = 1\n```\n") == expected


def test_user_prose_drops_pasted_code_and_logs_keeps_words():
    text = ("can you make it look more 3d\nthis is my current loader:\n.loader {\n  border: 16px solid #f3f3f3;\n}\n"
            "```\nTraceback (most recent call last):\n```\n我希望保持扁平")
    prose = user_prose(text)
    assert "look more 3d" in prose and "current loader" in prose and "我希望保持扁平" in prose
    assert "border" not in prose and "Traceback" not in prose and "{" not in prose


def test_running_a_writing_command_is_a_write_a_reading_one_is_not():
    from memvet.batchfacts import FactsOptions, message_facts
    from memvet.context import Message

    def tool(text):
        return message_facts(Message(id="m1", sessionKey="s", role="tool", content=text, timestamp=0), 0,
                             FactsOptions())
    commit = tool("Running git commit -m \"fix: x\"\nRunning git push origin main")
    assert "writes" in commit.acts and commit.commands[0].startswith("git commit")
    assert "writes" not in tool("Running git log --oneline -3\n9a6175d add content field").acts
    assert "writes" in tool("$ mv a.md notes/a.md").acts
