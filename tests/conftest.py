"""Shared test setup: a deterministic, CI-sized Hypothesis profile.

``ci`` (the default) is derandomized -- the same examples on every run and
every machine, so a red build is reproducible -- with no deadline (the first
call pays for rule compilation) and a bounded number of examples. ``dev``
explores more and randomly: ``HYPOTHESIS_PROFILE=dev pytest tests/engine/test_properties.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev", max_examples=500, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
# The benchmark generator (benchmarks/generate.py) makes test answers too; its
# folder is not an installed package, so every test file can import it the same
# way whichever file runs first.
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
# Tests live in folders (engine/, rules/, cli/, store/, extractor/, integrations/);
# their helpers (loopback.py, pgserver.py, workcount.py ...) and this conftest stay
# here, importable by name from every folder.
if str(REPO / "tests") not in sys.path:
    sys.path.insert(0, str(REPO / "tests"))


# --- a fresh venv with the built wheel (tests/integrations/test_wheel.py, tests/engine/test_plugins.py) ----------

import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import sysconfig  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import pytest  # noqa: E402

#: What a wheel is built from: the package folders and the files pyproject.toml reads.
SOURCE_PARTS = ("validators", "rules", "schemas", "extractor", "store", "examples/demo", "pyproject.toml", "README.md",
                "LICENSE")


@dataclass
class WheelEnv:
    """A venv that has memvet from the built wheel (and the example plugin), nothing editable."""

    root: Path
    python: Path
    wheel: Path
    plugin_wheel: Path

    def run(self, *args: str, cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.python.parent / args[0]), *args[1:]], capture_output=True, text=True,
                              cwd=cwd or self.root, input=input, timeout=120)


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args], check=True,
                   capture_output=True, text=True, timeout=300)


def build_wheel(source: Path, dist: Path) -> Path:
    """``pip wheel --no-deps`` of a copy of ``source``; offline first (no build isolation)."""
    try:
        _pip("wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(dist), str(source))
    except subprocess.CalledProcessError:
        # e.g. an old setuptools without its own bdist_wheel: let pip fetch the build backend.
        _pip("wheel", "--no-deps", "-q", "-w", str(dist), str(source))
    wheels = sorted(dist.glob("*.whl"))
    assert wheels, f"no wheel built from {source}"
    return wheels[-1]


@pytest.fixture(scope="session")
def wheel_env(tmp_path_factory) -> WheelEnv:
    root = tmp_path_factory.mktemp("wheel-env")
    src = root / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    for part in SOURCE_PARTS:  # a copy: building must not write build/ or egg-info into the checkout
        path = REPO / part
        if path.is_dir():
            shutil.copytree(path, src / part, ignore=ignore)
        elif path.is_file():
            shutil.copy2(path, src / part)
    plugin_src = root / "acme-plugin"
    shutil.copytree(REPO / "examples" / "acme-plugin", plugin_src, ignore=ignore)
    wheel = build_wheel(src, root / "dist")
    plugin_wheel = build_wheel(plugin_src, root / "plugin-dist")
    python = make_venv(root / "venv", wheel)
    return WheelEnv(root, python, wheel, plugin_wheel)


@pytest.fixture(scope="session")
def plugin_env(wheel_env) -> WheelEnv:
    """Another fresh venv: the memvet wheel plus the example plugin (found through its entry point)."""
    python = make_venv(wheel_env.root / "plugin-venv", wheel_env.wheel, wheel_env.plugin_wheel)
    return WheelEnv(wheel_env.root, python, wheel_env.wheel, wheel_env.plugin_wheel)


def make_venv(venv: Path, *wheels: Path) -> Path:
    """A venv without pip, this interpreter's dependencies visible, ``wheels`` installed; its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # Dependencies (pydantic, jsonschema, pluggy...) come from this interpreter's
    # site-packages as a plain path: its .pth files (the editable memvet) are
    # NOT processed, so the only importable memvet is the wheel's.
    ours = dict.fromkeys((sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]))
    Path(site, "_memvet_test_deps.pth").write_text("\n".join(ours) + "\n", "utf-8")
    _pip("--python", str(python), "install", "--no-deps", "--no-index", "--ignore-installed", "-q",
         *map(str, wheels))
    return python


# --- the store's two backends: a real PostgreSQL server (tests/pgserver.py) ------------------
from pgserver import pg_url, postgres_server, store_url  # noqa: E402,F401
