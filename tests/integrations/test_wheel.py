"""The built wheel holds every part of memvet and works in a fresh venv."""

from __future__ import annotations

import json
import zipfile

import memvet

from conftest import REPO

# Source folder -> its import path in the wheel (pyproject.toml [tool.setuptools.package-dir]).
PARTS = {"validators": "memvet", "rules": "memvet/rules", "schemas": "memvet/schemas",
         "extractor": "memvet/extractor", "store": "memvet/store", "examples/demo": "memvet/demo"}


def wheel_names(wheel) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def test_wheel_contains_every_package_and_the_schema_files(wheel_env):
    names = wheel_names(wheel_env.wheel)
    for package in ("memvet", "memvet/rules", "memvet/extractor", "memvet/schemas", "memvet/store", "memvet/testing"):
        assert f"{package}/__init__.py" in names, package
    for schema in ("extraction-output.schema.json", "batch-context.schema.json"):
        assert f"memvet/schemas/{schema}" in names
    assert "memvet/testing/strategies.py" in names
    assert "memvet/rules/value_model.json" in names  # G004's weights: without them every memory is an E001
    # Namespaced: installing memvet never shadows the PyPI packages `validators` or `rules`.
    assert not [n for n in names if n.split("/")[0] in ("validators", "rules", "schemas", "extractor", "store")]


def test_wheel_contains_every_source_file(wheel_env):
    names = wheel_names(wheel_env.wheel)
    missing = []
    for folder, package in PARTS.items():
        for path in (REPO / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".json", ".jsonl", ".yaml", ".md", ".txt", ".typed") \
                    and "__pycache__" not in path.parts:
                name = f"{package}/{path.relative_to(REPO / folder).as_posix()}"
                if name not in names:
                    missing.append(name)
    assert not missing, f"not in the wheel: {missing}"


def test_wheel_declares_the_console_script_and_the_builtin_entry_point(wheel_env):
    with zipfile.ZipFile(wheel_env.wheel) as zf:
        entry_points = next(zf.read(n).decode() for n in zf.namelist() if n.endswith(".dist-info/entry_points.txt"))
    assert "memvet = memvet.cli:main" in entry_points
    assert "[memvet]" in entry_points and "builtin = memvet.rules" in entry_points


def test_installed_wheel_runs_version_and_check(wheel_env, tmp_path):
    where = wheel_env.run("python", "-c", "import memvet; print(memvet.__file__)")
    assert where.returncode == 0 and str(wheel_env.root / "venv") in where.stdout  # not the checkout
    version = wheel_env.run("memvet", "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"memvet {memvet.__version__}"
    result = wheel_env.run("memvet", "check", str(REPO / "examples" / "output.json"), "--context",
                           str(REPO / "examples" / "context.json"), "--format", "json", cwd=tmp_path)
    report = json.loads(result.stdout)
    assert result.returncode == (0 if report["ok"] else 1), result.stderr
    # The same code from the wheel gives the same report, byte for byte.
    expected = memvet.validate((REPO / "examples" / "output.json").read_text("utf-8"), REPO / "examples" / "context.json")
    assert result.stdout == expected.to_json() + "\n"


def test_installed_wheel_loads_its_package_data(wheel_env):
    code = ("from memvet.schemas import load, strict_output_schema; import memvet.testing.strategies;"
            "print(load('extraction-output')['type'], strict_output_schema()['type'])")
    result = wheel_env.run("python", "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["array", "object"]


def test_wheel_is_typed_and_openai_is_only_an_extra(wheel_env):
    names = wheel_names(wheel_env.wheel)
    assert "memvet/py.typed" in names
    with zipfile.ZipFile(wheel_env.wheel) as zf:
        metadata = next(zf.read(n).decode() for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
    requires = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    openai = [r for r in requires if r.startswith("openai")]
    assert openai and all('extra == "llm"' in r or 'extra == "test"' in r for r in openai), openai
    assert "Provides-Extra: llm" in metadata


def test_installed_wheel_runs_the_demo_from_its_package_data(wheel_env, tmp_path):
    # No checkout and no examples/ folder here: the demo's data must come from the wheel.
    result = wheel_env.run("memvet", "demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "3 batches to extract" in result.stdout
    assert "task_state" in result.stdout and "project_fact" in result.stdout
    assert not (tmp_path / "examples").exists()
