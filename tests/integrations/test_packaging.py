"""The core install works without the `openai` extra, and the extractor says how to get it."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO

# sys.modules["openai"] = None makes `import openai` fail exactly as it does when the package is absent.
WITHOUT_OPENAI = "import sys; sys.modules['openai'] = None\n"


def python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)


def test_check_never_imports_openai():
    result = python("import sys\nfrom memvet.cli import main\n"
                    "code = main(['check', 'examples/output.json', '--context', 'examples/context.json', '-qq'])\n"
                    "print(code, 'openai' in sys.modules)")
    assert result.stdout.split() == ["1", "False"], result.stderr


def test_without_openai_check_works_and_the_extractor_names_the_extra():
    result = python(WITHOUT_OPENAI + "from memvet.cli import main\n"
                    "print(main(['check', 'examples/output.json', '--context', 'examples/context.json', '-qq']))\n"
                    "print(main(['demo']))\n"
                    "print(main(['extract', 'examples/context.json', '--dry-run']))")
    codes = [line for line in result.stdout.splitlines() if line.strip() in ("0", "1", "2")]
    assert codes[:2] == ["1", "2"], result.stdout + result.stderr
    assert "pip install 'memvet[llm]'" in result.stderr
    assert codes[-1] == "0" and '"role": "system"' in result.stdout  # --dry-run calls nothing: no openai needed


def test_pyproject_keeps_openai_out_of_the_core():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    assert not any(dep.startswith("openai") for dep in project["dependencies"])
    assert any(dep.startswith("openai") for dep in project["optional-dependencies"]["llm"])
    assert any(dep.startswith("openai") for dep in project["optional-dependencies"]["test"])
    assert (REPO / "validators" / "py.typed").is_file()
