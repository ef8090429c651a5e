"""Never silently off: config typos, broken TOML and broken plugins are errors (exit 2), and
``validate()`` finds the same config as the CLI."""

from __future__ import annotations

import importlib.metadata
import json
import shutil

import pytest

import memvet
from memvet.cli import main
from memvet.engine import Engine
from memvet.hookspecs import hookimpl
from memvet.registry import build_registry, default_registry
from memvet.rule import Finding, Rule

from conftest import REPO

OUTPUT = (REPO / "examples" / "output.json").read_text("utf-8")
CONTEXT = str(REPO / "examples" / "context.json")


@pytest.mark.parametrize("config, field, hint", [
    ({"select": ["I00l"]}, "tool.memvet.select[0]", "did you mean 'I001'?"),
    ({"select": ["i001"]}, "tool.memvet.select[0]", "did you mean 'I001'?"),
    ({"select": ["ALL"], "ignore": ["X999"]}, "tool.memvet.ignore[0]", ""),
    ({"ignore": ["Q001", "q"]}, "tool.memvet.ignore[1]", "did you mean 'Q'?"),
    ({"actions": {"i001": "warn"}}, "tool.memvet.actions.i001", "did you mean 'I001'?"),
    ({"rules": {"M04": {}}}, "tool.memvet.rules.M04", "did you mean 'M004'?"),
    ({"rules": {"M004": {"zero_informaton": ["x"]}}}, "tool.memvet.rules.M004.zero_informaton",
     "did you mean 'zero_information'?"),
])
def test_unknown_codes_prefixes_and_options_are_config_errors(config, field, hint):
    with pytest.raises(memvet.ConfigError) as err:
        memvet.validate(OUTPUT, CONTEXT, config=config)
    assert err.value.field == field and hint in str(err.value)


@pytest.mark.parametrize("select", [["ALL"], ["I"], ["I00"], ["I001", "S"], ["E001"]])
def test_real_codes_and_prefixes_are_accepted(select):
    memvet.validate(OUTPUT, CONTEXT, config={"select": select})


def test_a_typo_in_memvet_toml_is_exit_2_naming_the_field(tmp_path, monkeypatch, capsys):
    (tmp_path / "memvet.toml").write_text('select = ["I00l"]\n', "utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", str(REPO / "examples" / "output.json"), "--context", CONTEXT]) == 2
    err = capsys.readouterr().err
    assert "memvet.toml: select[0]:" in err and "did you mean 'I001'?" in err


@pytest.mark.parametrize("name, text, line, column", [
    ("pyproject.toml", '[tool.memvet]\nselect = ["I001"\nignore = []\n', 3, 1),
    ("pyproject.toml", '[project]\nname = "x"\nname = "y"\n', 3, 11),
    ("memvet.toml", 'select = ["ALL"]\nfail_closed = yes\n', 2, 15),
])
def test_toml_that_does_not_parse_is_an_error_naming_file_line_and_column(tmp_path, monkeypatch, capsys, name,
                                                                         text, line, column):
    (tmp_path / name).write_text(text, "utf-8")
    monkeypatch.chdir(tmp_path)
    for argv in ([], ["--config", str(tmp_path / name)]):
        assert main(["check", str(REPO / "examples" / "output.json"), "--context", CONTEXT, *argv]) == 2
        assert f"{name}:{line}:{column}: not valid TOML" in capsys.readouterr().err
    with pytest.raises(memvet.ConfigError) as err:
        memvet.validate(OUTPUT, CONTEXT)  # the API discovers the same file
    assert err.value.file.endswith(f"{name}:{line}:{column}")


def test_a_config_file_that_is_not_utf8_names_the_position(tmp_path):
    path = tmp_path / "memvet.toml"
    path.write_bytes(b'select = ["ALL"]\nignore = ["\xff"]\n')
    with pytest.raises(memvet.ConfigError) as err:
        memvet.load_config_file(path)
    assert err.value.file == f"{path}:2:12" and "not UTF-8" in str(err.value)


# --- validate() and the CLI give the same verdict in the same directory ---------------------

def test_validate_discovers_the_config_the_cli_uses(tmp_path, monkeypatch, capsys):
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.memvet]\nignore = ["I001", "I003"]\n'
                                            'actions = { G002 = "warn" }\n', "utf-8")
    shutil.copy(REPO / "examples" / "output.json", project / "sub" / "output.json")
    monkeypatch.chdir(project / "sub")  # found upward, as the CLI finds it
    api = memvet.validate(OUTPUT, CONTEXT)
    code = main(["check", "output.json", "--context", CONTEXT, "--format", "json"])
    cli = json.loads(capsys.readouterr().out)
    assert cli == api.to_dict() and code == (0 if api.ok else 1)
    assert "I001" not in api.codes() and "I001" in memvet.validate(OUTPUT, CONTEXT, config={}).codes()
    monkeypatch.chdir(tmp_path)  # outside the project: the defaults, in both
    assert "I001" in memvet.validate(OUTPUT, CONTEXT).codes()


def test_an_edited_config_file_is_read_again(tmp_path, monkeypatch):
    (tmp_path / "memvet.toml").write_text('ignore = ["I001"]\n', "utf-8")
    monkeypatch.chdir(tmp_path)
    assert "I001" not in memvet.validate(OUTPUT, CONTEXT).codes()
    (tmp_path / "memvet.toml").write_text('ignore = ["I003"]\n# changed\n', "utf-8")
    assert "I001" in memvet.validate(OUTPUT, CONTEXT).codes()


# --- broken plugins -------------------------------------------------------------------------

class _Fine(Rule):
    """A plugin rule that never finds anything."""

    code, name, target, action = "FINE001", "fine", "memory", "warn"

    def check(self, memory, ctx):
        return ()


class _Clash(_Fine):
    """A plugin rule that takes a built-in family's code."""

    code, name = "I901", "clash"


class _Plugins:
    class raising:
        @staticmethod
        @hookimpl
        def memvet_rules():
            raise RuntimeError("boom")

    class refused:
        @staticmethod
        @hookimpl
        def memvet_rules():
            return [_Fine, _Clash]


@pytest.mark.parametrize("plugin, names", [(_Plugins.raising, ["'raising'", "RuntimeError", "boom"]),
                                           (_Plugins.refused, ["'refused'", "I901"])])
def test_a_broken_or_refused_plugin_is_an_error_unless_allowed(plugin, names):
    registry = build_registry(entry_points=False, plugins=(plugin,))
    with pytest.raises(memvet.PluginError) as err:
        Engine(memvet.Config(), registry)
    assert all(n in str(err.value) for n in names) and "allow_broken_plugins" in str(err.value)
    engine = Engine(memvet.Config(allow_broken_plugins=True), registry)
    for raw in (OUTPUT, "not json at all"):
        report = engine.validate(raw, CONTEXT)
        warnings = [v for v in report.violations if v.code == "E001" and v.action == "warn"]
        assert warnings and all(n in warnings[0].message for n in names)
        assert "did not run" in warnings[0].message


@pytest.fixture
def ghost_plugin(monkeypatch):
    """An installed entry point whose module does not import (default registry rebuilt around it)."""
    broken = importlib.metadata.EntryPoint(name="ghost", value="memvet_ghost_plugin_that_is_not_there", group="memvet")
    real = importlib.metadata.entry_points

    def entry_points(**kw):
        found = real(**kw)
        return [*found, broken] if kw.get("group") == "memvet" else found

    monkeypatch.setattr("memvet.registry.metadata.entry_points", entry_points)
    default_registry.cache_clear()
    memvet.engine._default_engine.cache_clear()
    memvet.engine._engines.clear()
    yield
    default_registry.cache_clear()
    memvet.engine._default_engine.cache_clear()
    memvet.engine._engines.clear()


def test_a_plugin_that_fails_to_load_stops_check_and_validate(ghost_plugin, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["check", str(REPO / "examples" / "output.json"), "--context", CONTEXT]) == 2
    assert "ghost" in capsys.readouterr().err
    with pytest.raises(memvet.PluginError):
        memvet.validate(OUTPUT, CONTEXT)
    (tmp_path / "memvet.toml").write_text("allow_broken_plugins = true\n", "utf-8")
    assert main(["check", str(REPO / "examples" / "output.json"), "--context", CONTEXT, "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert any(v["code"] == "E001" and "ghost" in v["message"] for v in report["violations"])
    assert any(v.code == "E001" and "ghost" in v.message for v in memvet.validate(OUTPUT, CONTEXT).violations)


def test_memvet_rules_still_lists_the_rules_and_names_the_broken_plugin(ghost_plugin, tmp_path, monkeypatch,
                                                                       capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["rules"]) == 0
    captured = capsys.readouterr()
    assert "I001" in captured.out and "ghost" in captured.err


def test_a_jsonl_line_nested_too_deeply_is_a_caller_error(tmp_path, capsys):
    path = tmp_path / "answers.jsonl"
    path.write_text('{"context": {}, "output": ' + "[" * 100_000 + "]" * 100_000 + "}\n", "utf-8")
    assert main(["check", str(path)]) == 2
    assert f"{path}:1" in capsys.readouterr().err
