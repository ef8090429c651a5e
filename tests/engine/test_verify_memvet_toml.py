"""Verify (issue 15, item 1): `memvet rule CODE` tells a memvet.toml user the table they can write.

Found on main: with the options configured in a memvet.toml, `memvet rule
M004` said "set them under [tool.memvet.rules.M004]" -- a table memvet.toml
refuses ("tool: unknown key", with no hint why).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _memvet(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memvet", *args], cwd=cwd, capture_output=True, text=True)


def test_rule_names_the_memvet_toml_table_and_that_table_works(tmp_path: Path):
    (tmp_path / "memvet.toml").write_text('[rules.M004]\nextend_zero_information = ["拍脑袋决定"]\n', "utf-8")
    proc = _memvet("rule", "M004", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "set them under [rules.M004])" in proc.stdout
    assert "拍脑袋决定" in proc.stdout          # the configured value, in full


def test_rule_names_the_pyproject_table_there(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.memvet.rules.M004]\nextend_zero_information = ["x y z"]\n',
                                             "utf-8")
    proc = _memvet("rule", "M004", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "set them under [tool.memvet.rules.M004])" in proc.stdout


def test_a_pyproject_table_pasted_into_memvet_toml_says_why_it_is_refused(tmp_path: Path):
    (tmp_path / "memvet.toml").write_text('[tool.memvet.rules.M004]\nextend_zero_information = ["x"]\n', "utf-8")
    proc = _memvet("rules", cwd=tmp_path)
    assert proc.returncode == 2
    assert "tool: unknown key" in proc.stderr and "drop the 'tool.memvet.' prefix" in proc.stderr
