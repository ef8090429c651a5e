"""The JSON Schemas shipped as package data, and the strict-mode variant derived from them."""

from __future__ import annotations

import copy
from typing import Any, Iterator

import pytest
from hypothesis import given
from jsonschema import Draft202012Validator

from memvet import ContextError, load_context
from memvet.schemas import CONTEXT, OUTPUT, load, strict_output_schema, to_strict
from memvet.schemas.strict import UNSUPPORTED, WRAP_KEY, unwrap
from memvet.testing.strategies import batch_contexts, valid_pairs

# What OpenAI-style strict mode understands; anything else must be gone.
STRICT_KEYWORDS = {"type", "properties", "required", "additionalProperties", "items", "enum", "anyOf", "$ref",
                   "$defs", "const"}


def schemas_in(node: Any) -> Iterator[dict[str, Any]]:
    """Every (sub)schema of a schema document."""
    if isinstance(node, dict):
        yield node
        for key, value in node.items():
            if key in ("properties", "$defs"):
                for sub in value.values():
                    yield from schemas_in(sub)
            elif key in ("items", "anyOf", "oneOf", "allOf", "not"):
                yield from schemas_in(value)
    elif isinstance(node, list):
        for sub in node:
            yield from schemas_in(sub)


def accepts_null(schema: dict[str, Any], defs: dict[str, Any]) -> bool:
    return Draft202012Validator({**schema, "$defs": defs}).is_valid(None)


def with_nulls(output: list[Any]) -> list[Any]:
    """What a strict-mode model emits: every optional property present, null when unused."""
    contract = load(OUTPUT)["$defs"]
    out = copy.deepcopy(output)
    for scene in out:
        for key in contract["scene"]["properties"]:
            scene.setdefault(key, None)
        for memory in scene["memories"]:
            for key in contract["memory"]["properties"]:
                memory.setdefault(key, None)
            if memory["metadata"] is not None:
                for key in contract["metadata"]["properties"]:
                    memory["metadata"].setdefault(key, None)
    return out


def drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value


@pytest.mark.parametrize("name", [OUTPUT, CONTEXT])
def test_shipped_schemas_are_valid_draft_2020_12(name):
    schema = load(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_load_returns_a_fresh_copy():
    first = load(OUTPUT)
    first["$defs"]["scene"]["required"].append("bogus")
    assert "bogus" not in load(OUTPUT)["$defs"]["scene"]["required"]


def test_strict_schema_is_a_valid_schema_with_an_object_root():
    strict = strict_output_schema()
    Draft202012Validator.check_schema(strict)
    assert strict["type"] == "object" and strict["required"] == [WRAP_KEY]
    assert strict["properties"][WRAP_KEY]["type"] == "array"


def test_strict_schema_uses_only_strict_mode_keywords():
    used = {key for schema in schemas_in(strict_output_schema()) for key in schema}
    assert used <= STRICT_KEYWORDS, used - STRICT_KEYWORDS
    assert not used & UNSUPPORTED


def test_every_strict_object_requires_all_its_properties_and_closes():
    objects = [s for s in schemas_in(strict_output_schema()) if "properties" in s]
    assert len(objects) >= 4  # root, scene, memory, metadata
    for schema in objects:
        assert schema["required"] == list(schema["properties"])
        assert schema["additionalProperties"] is False


def test_optional_properties_become_nullable_and_required_ones_do_not():
    contract = load(OUTPUT)["$defs"]
    strict = strict_output_schema()
    defs = strict["$defs"]
    for name in ("scene", "memory", "metadata"):
        required = set(contract[name].get("required", ()))
        for prop, schema in defs[name]["properties"].items():
            assert accepts_null(schema, defs) == (prop not in required), f"{name}.{prop}"


def test_derivation_follows_the_contract_rather_than_a_copy():
    # Add a field to a copy of the contract: the derivation picks it up as nullable and required.
    contract = load(OUTPUT)
    contract["$defs"]["memory"]["properties"]["confidence"] = {"type": "number", "minimum": 0, "maximum": 1}
    strict = to_strict(contract)
    memory = strict["$defs"]["memory"]
    assert "confidence" in memory["required"]
    assert memory["properties"]["confidence"] == {"type": ["number", "null"]}


def test_to_strict_on_a_small_schema():
    schema = {"type": "object", "description": "x", "properties": {
        "a": {"type": "string", "minLength": 1}, "b": {"enum": ["x", "y"]}, "c": {"$ref": "#/$defs/c"},
        "d": {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "string", "pattern": "^x"}]}},
        "required": ["a"]}
    assert to_strict(schema) == {"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"enum": ["x", "y", None]}, "c": {"anyOf": [{"$ref": "#/$defs/c"}, {"type": "null"}]},
        "d": {"anyOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"type": "null"}]}},
        "required": ["a", "b", "c", "d"], "additionalProperties": False}


@given(valid_pairs(min_scenes=1))
def test_valid_answers_in_strict_form_validate_and_unwrap_to_the_contract(pair):
    _, output = pair
    strict_answer = {WRAP_KEY: with_nulls(output)}
    Draft202012Validator(strict_output_schema()).validate(strict_answer)
    assert drop_nulls(unwrap(strict_answer)) == output
    assert Draft202012Validator(load(OUTPUT)).is_valid(drop_nulls(unwrap(strict_answer)))


def test_strict_schema_rejects_missing_optional_keys_and_extra_keys():
    answer = {WRAP_KEY: with_nulls([{"new_scene_name": "demo｜x", "new_scene_reason": "r", "message_ids": ["m1"],
                                     "memories": [{"content": "c", "type": "work_fact", "priority": 80,
                                                   "source_message_ids": ["m1"]}]}])}
    validator = Draft202012Validator(strict_output_schema())
    assert validator.is_valid(answer)
    missing = copy.deepcopy(answer)
    del missing[WRAP_KEY][0]["memories"][0]["taskState"]
    assert not validator.is_valid(missing)
    extra = copy.deepcopy(answer)
    extra[WRAP_KEY][0]["memories"][0]["confidence"] = 0.9
    assert not validator.is_valid(extra)


def test_unwrap_leaves_other_values_alone():
    assert unwrap({WRAP_KEY: []}) == []
    assert unwrap([{"a": 1}]) == [{"a": 1}]
    assert unwrap({WRAP_KEY: [], "x": 1}) == {WRAP_KEY: [], "x": 1}


# --- the context schema and the context loader agree -----------------------------------

@given(batch_contexts())
def test_generated_contexts_satisfy_the_context_schema_and_load(context):
    Draft202012Validator(load(CONTEXT)).validate(context)
    batch = load_context(context)
    assert len(batch.messages) == len(context["messages"])


@pytest.mark.parametrize("change, field", [
    (lambda c: c.update(scenepool=[]), "/scenepool"),
    (lambda c: c["messages"][0].pop("role"), "/messages/0/role"),
    (lambda c: c["messages"][0].update(role="robot"), "/messages/0/role"),
    (lambda c: c["messages"][0].update(id=""), "/messages/0/id"),
    (lambda c: c.update(scenePool=[{"id": "sc1"}]), "/scenePool"),
])
def test_broken_contexts_fail_the_schema_and_the_loader_naming_the_field(change, field):
    context = {"messages": [{"id": "m1", "sessionKey": "s1", "role": "user", "content": "hi", "timestamp": None}],
               "scenePool": []}
    change(context)
    assert not Draft202012Validator(load(CONTEXT)).is_valid(context)
    with pytest.raises(ContextError) as err:
        load_context(context, source="ctx.json")
    assert err.value.file == "ctx.json"
    assert err.value.field.startswith(field)


# --- boundary cases where pydantic and JSON Schema traditionally disagree ------------------

def _doc(**memory_changes):
    memory = {"content": "c", "type": "work_fact", "priority": 80, "source_message_ids": ["m1"], **memory_changes}
    return [{"message_ids": ["m1"], "memories": [memory]}]


@pytest.mark.parametrize("doc, valid", [
    (_doc(priority=70.0), True),            # JSON Schema's integer includes 70.0
    (_doc(priority=70.5), False),
    (_doc(priority=True), False),           # ...and excludes booleans
    (_doc(priority=101), False),
    (_doc(priority=-0.0), True),
    (_doc(content=""), False),
    (_doc(taskState=None), False),          # optional means absent, never null
    (_doc(metadata=None), False),
    (_doc(metadata={"status": None}), False),
    (_doc(metadata={"anything": None}), True),  # unknown metadata keys are T003's business
    (_doc(metadata={"projectEvidence": [""]}), False),
    (_doc(source_message_ids=[]), False),
    (_doc(type="note"), False),
    (_doc(confidence=0.9), False),
    ([{"scene_id": None, "message_ids": [], "memories": []}], False),
    ([{"scene_id": "sc1", "new_scene_name": "a｜b", "message_ids": [], "memories": []}], True),  # S006's business
    ([], True),
    ({}, False),
])
def test_models_and_schema_agree_on_boundaries(doc, valid):
    from memvet.contract import validator
    from memvet.models import accepts

    assert validator().is_valid(doc) is valid
    assert accepts(doc) is valid
