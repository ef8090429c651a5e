"""Stage 2, contract: the JSON Schema of the extraction output (S004).

The typed pydantic models answer "is this valid?" fast; only when they say
no does jsonschema run, to give one violation per schema error at its JSON
Pointer. A missing property is reported at the pointer where it belongs
(``/0/memories/1/type``) and each unknown property at its own pointer, so
the repair loop can ask about exactly that field.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, Iterator

from . import pointer as jp
from .models import accepts
from memvet.schemas import OUTPUT, load

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator


@cache
def validator() -> "Draft202012Validator":
    # Imported on first use: valid answers never need jsonschema, and every
    # `memvet` start (and --jobs worker) would pay ~0.1 s for the import.
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load(OUTPUT))


def _leaves(error: Any) -> Iterator[Any]:
    # anyOf/oneOf wrap their reasons in context; report the innermost ones.
    if error.context:
        for sub in error.context:
            yield from _leaves(sub)
    else:
        yield error


def schema_errors(value: Any) -> list[tuple[str, str]]:
    """``[(pointer, message), ...]`` for every contract error, in document order."""
    try:
        return _schema_errors(value)
    except RecursionError:
        # Nested deeper than the validators can walk (the contract is ~7 levels
        # deep): one error at the root keeps every scene away from the rules.
        return [("", "the output is nested too deeply to check against the contract")]


def _schema_errors(value: Any) -> list[tuple[str, str]]:
    if accepts(value):
        return []
    found: list[tuple[str, str]] = []
    for error in validator().iter_errors(value):
        for leaf in _leaves(error):
            base = list(leaf.absolute_path)
            if leaf.validator == "required":
                missing = [p for p in leaf.validator_value if isinstance(leaf.instance, dict) and p not in leaf.instance]
                for prop in missing:
                    found.append((jp.from_path([*base, prop]), f"required property {prop!r} is missing"))
            elif leaf.validator == "additionalProperties" and isinstance(leaf.instance, dict):
                allowed = set(leaf.schema.get("properties", {}))
                for prop in leaf.instance:
                    if prop not in allowed:
                        found.append((jp.from_path([*base, prop]),
                                      f"unknown property {prop!r} (allowed: {', '.join(sorted(allowed))})"))
            else:
                found.append((jp.from_path(base), _short(leaf)))
    seen: set[tuple[str, str]] = set()
    unique = [f for f in found if not (f in seen or seen.add(f))]
    return sorted(unique, key=lambda f: _order_key(f[0]))


def _order_key(pointer: str) -> tuple[Any, ...]:
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in jp.split(pointer))


def _short(error: Any) -> str:
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."
