"""Derive the strict-mode schema for LLM structured outputs from the contract.

OpenAI-style strict mode accepts a subset of JSON Schema: every property must
be listed in ``required``, optional ones are expressed as nullable, every
object closes with ``additionalProperties: false`` and validation keywords
such as ``minLength`` or ``minimum`` are not supported. The root must be an
object, so the scene array is wrapped as ``{"scenes": [...]}`` and the
extractor unwraps it after. Derived by code so the two can never drift.
"""

from __future__ import annotations

from typing import Any

from .documents import OUTPUT, load

# Keywords strict mode rejects or ignores; the engine still enforces them.
UNSUPPORTED = frozenset({
    "$schema", "$id", "title", "minLength", "maxLength", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", "pattern",
    "format", "uniqueItems", "default", "examples",
})

WRAP_KEY = "scenes"


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    out = dict(schema)
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    if "type" in out:
        types = out["type"] if isinstance(out["type"], list) else [out["type"]]
        out["type"] = [*types, "null"] if "null" not in types else types
    elif "enum" not in out:
        return {"anyOf": [schema, {"type": "null"}]}
    return out


def to_strict(schema: Any) -> Any:
    """Return a strict-mode copy of ``schema`` (any JSON Schema fragment)."""
    if isinstance(schema, list):
        return [to_strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in UNSUPPORTED or key == "description":
            continue
        if key == "oneOf":
            key = "anyOf"
        if key in ("properties", "$defs"):
            out[key] = {k: to_strict(v) for k, v in value.items()}
        else:
            out[key] = to_strict(value)
    if "properties" in out:
        required = set(schema.get("required", ()))
        out["properties"] = {
            name: sub if name in required else _nullable(sub)
            for name, sub in out["properties"].items()
        }
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


def strict_output_schema(*, wrap: bool = True) -> dict[str, Any]:
    """The extraction-output contract in strict mode, wrapped in an object root."""
    contract = load(OUTPUT)
    strict = to_strict(contract)
    if not wrap:
        return strict
    defs = strict.pop("$defs", {})
    return {
        "type": "object",
        "properties": {WRAP_KEY: strict},
        "required": [WRAP_KEY],
        "additionalProperties": False,
        "$defs": defs,
    }


def unwrap(value: Any) -> Any:
    """Undo :func:`strict_output_schema`'s wrapping; anything else passes through."""
    if isinstance(value, dict) and set(value) == {WRAP_KEY}:
        return value[WRAP_KEY]
    return value
