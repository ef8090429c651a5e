"""extend_<option> for every word list, and the shipped JSON Schema of [tool.memvet] kept equal to the models."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st
from jsonschema import Draft202012Validator

import memvet
from memvet import schemas
from memvet.config import config_from_dict
from memvet.config_schema import SCHEMA_NAME, config_schema, render
from memvet.engine import Engine
from memvet.options import EXTEND, word_lists
from memvet.registry import build_registry

from conftest import REPO

REGISTRY = build_registry(entry_points=False)
WORD_LISTS = [(code, name) for code, cls in sorted(REGISTRY.rules.items()) for name in word_lists(cls.Options)]


def bound(config: dict, code: str):
    engine = Engine(config_from_dict(config), REGISTRY)
    return next(b for bs in engine.by_target.values() for b in bs if b.code == code)._rule.options


@pytest.mark.parametrize("code, name", WORD_LISTS)
def test_every_word_list_can_be_extended_keeping_the_built_in_words(code, name):
    default = list(getattr(REGISTRY.rules[code].Options(), name))
    options = bound({"rules": {code: {EXTEND + name: ["拍脑袋决定的新词", default[0] if default else "x"]}}}, code)
    assert list(getattr(options, name)) == default + ["拍脑袋决定的新词"] + ([] if default else ["x"])


def test_a_replaced_list_can_be_extended_too_and_others_stay_default():
    options = bound({"rules": {"M004": {"zero_information": ["a"], "extend_zero_information": ["b", "a"]}}}, "M004")
    assert options.zero_information == ["a", "b"]
    assert options.concrete_markers == REGISTRY.rules["M004"].Options().concrete_markers


def test_there_are_word_lists_in_chinese_and_english():
    assert len(WORD_LISTS) >= 40


@pytest.mark.parametrize("options, field, message", [
    ({"extend_zero_informaton": ["x"]}, "tool.memvet.rules.M004.extend_zero_informaton",
     "did you mean 'extend_zero_information'?"),
    ({"extend_zero_information": "x"}, "tool.memvet.rules.M004.extend_zero_information", "list of strings"),
])
def test_a_bad_extend_is_a_config_error(options, field, message):
    with pytest.raises(memvet.ConfigError) as err:
        Engine(config_from_dict({"rules": {"M004": options}}), REGISTRY)
    assert err.value.field == field and message in str(err.value)


def test_the_readme_m004_snippet_extends_the_built_in_list():
    readme = (REPO / "README.md").read_text("utf-8")
    assert "extend_zero_information = [" in readme


# --- the JSON Schema ------------------------------------------------------------------------

SCHEMA = schemas.load(SCHEMA_NAME)
VALIDATOR = Draft202012Validator(SCHEMA)


def test_the_shipped_schema_is_the_generated_one():
    shipped = (REPO / "schemas" / f"{SCHEMA_NAME}.schema.json").read_text("utf-8")
    assert shipped == render(config_schema(REGISTRY)), "run: python -m memvet.config_schema"
    Draft202012Validator.check_schema(SCHEMA)


def test_the_schema_names_every_key_of_the_models_and_every_rule_option():
    assert set(SCHEMA["properties"]) == set(memvet.Config.model_fields) - {"source"}
    rules = SCHEMA["properties"]["rules"]["properties"]
    for code, cls in REGISTRY.rules.items():
        fields = set(cls.Options.model_fields)
        if fields:
            assert set(rules[code]["properties"]) == fields | {EXTEND + n for n in word_lists(cls.Options)}


README_TABLE = {"select": ["ALL"], "ignore": ["Q001", "L006"], "actions": {"L005": "reject"}, "min_priority": 75,
                "fail_closed": True, "rules": {"M004": {"extend_zero_information": ["拍脑袋决定"]}},
                "routing": {"repo": "billing-api"}}


@pytest.mark.parametrize("table", [
    {}, README_TABLE, {"allow_broken_plugins": True, "store": {"path": "x.db", "busy_timeout": 2.5}},
    {"rules": {"L005": {"max_chars": 120}, "Q001": {"threshold": 0.8}}}, {"select": ["I", "S01"], "ignore": ["I001"]},
    {"rules": {"ACME001": {"pattern": "x"}}},  # a plugin's options: known at run time only
])
def test_the_schema_accepts_what_the_models_accept(table):
    config_from_dict(table)
    assert list(VALIDATOR.iter_errors(table)) == []


@pytest.mark.parametrize("table", [
    {"selct": ["ALL"]}, {"actions": {"L005": "explode"}}, {"actions": {"l005": "warn"}}, {"min_priority": 101},
    {"rules": {"X999": {}}}, {"rules": {"M004": {"zero_informaton": []}}}, {"rules": {"L005": {"extend_max_chars": [1]}}},
    {"rules": {"M004": {"extend_zero_information": [1]}}}, {"select": ["i001"]}, {"routing": {"rep": "x"}},
    {"extractor": {"structured": "yes"}}, {"fail_closed": "yes"},
])
def test_the_schema_refuses_what_the_models_refuse(table):
    with pytest.raises(memvet.ConfigError):
        Engine(config_from_dict(table), REGISTRY)
    assert list(VALIDATOR.iter_errors(table)) != []


VALUES = {
    "select": st.lists(st.sampled_from(["ALL", "I", "S004", "M", "x", "Q01"]), max_size=3),
    "ignore": st.lists(st.sampled_from(["Q001", "L", "E", "q001"]), max_size=2),
    "actions": st.dictionaries(st.sampled_from(["L005", "M004", "ZZ"]), st.sampled_from(["warn", "drop", "nope"]),
                               max_size=2),
    "min_priority": st.sampled_from([0, 70, 100, 101, -1, "70"]),
    "fail_closed": st.sampled_from([True, False, "no"]),
    "rules": st.dictionaries(st.sampled_from(["M004", "L005", "T008"]), st.dictionaries(
        st.sampled_from(["zero_information", "extend_zero_information", "max_chars", "extend_max_chars",
                         "tolerance_minutes", "nonsense"]),
        st.sampled_from([["a"], [], 5, "x"]), max_size=2), max_size=2),
    "routing": st.sampled_from([{"repo": "r"}, {"repo": 3}, {"rpo": "r"}]),
    "unknown": st.just(1),
}


@given(st.fixed_dictionaries({}, optional=VALUES))
def test_schema_and_models_agree(table):
    try:
        Engine(config_from_dict(table), REGISTRY)
        models_ok = True
    except memvet.ConfigError:
        models_ok = False
    # The schema checks shape; whether a prefix names a loaded rule is known only at run time.
    prefixes_known = all(p in ("ALL", "I", "S004", "M", "Q001", "L", "E") for key in ("select", "ignore")
                         for p in table.get(key, []))
    schema_ok = not list(VALIDATOR.iter_errors(table))
    if prefixes_known:
        assert schema_ok == models_ok, table
    else:
        assert not models_ok


def test_the_batch_facts_word_lists_extend_too():
    # [facts] extend_done = [...] keeps the built-in words, like a rule's list (session 26)
    from memvet.batchfacts import FactsOptions
    config = config_from_dict({"facts": {"extend_accept": ["passt so"]}})
    assert config.facts.accept == list(FactsOptions().accept) + ["passt so"]
    VALIDATOR.validate({"facts": {"extend_accept": ["passt so"]}})
    with pytest.raises(memvet.ConfigError) as err:
        config_from_dict({"facts": {"extend_acept": ["x"]}})
    assert err.value.field == "tool.memvet.facts.extend_acept" and "extend_accept" in str(err.value)
