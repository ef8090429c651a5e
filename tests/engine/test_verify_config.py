"""Verify (issue 12, item 4): a config file that is not TOML names file, line AND column.

Found on main: when tomllib reports an error "at end of document" (an
unclosed array or table, the commonest typo) the message named the file
only: ``memvet.toml: not valid TOML: Invalid value (at end of document)``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memvet.config import ConfigError, load_config_file


@pytest.mark.parametrize("text, where", [
    ('select = [\n', "2:1"),          # ends after the line break
    ('select = ["S"', "1:14"),        # ends on the first line
    ('[tool.memvet]\nselect = ["S",\n  "I"', "3:6"),
])
def test_an_error_at_the_end_of_the_document_names_its_line_and_column(tmp_path: Path, text: str, where: str):
    path = tmp_path / "memvet.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigError) as err:
        load_config_file(path)
    assert f"{path}:{where}: not valid TOML" in str(err.value)
    assert "end of document" not in str(err.value)


def test_the_cli_says_it_with_exit_2(tmp_path: Path):
    (tmp_path / "memvet.toml").write_text("select = [\n", "utf-8")
    repo = Path(__file__).parents[2]
    proc = subprocess.run([sys.executable, "-m", "memvet", "check", str(repo / "examples" / "output.json"),
                           "--context", str(repo / "examples" / "context.json")],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2
    assert f"{tmp_path / 'memvet.toml'}:2:1: not valid TOML: Invalid value" in proc.stderr
