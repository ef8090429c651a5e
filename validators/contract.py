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
from .depth import MAX_ANSWER_DEPTH, pruned, too_deep
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


def _deep_metadata(value: list[Any]) -> list[str]:
    """Pointers of foreign metadata values nested too deeply (the only place the
    typed models let arbitrary structure through)."""
    found: list[str] = []
    for i, scene in enumerate(value):
        for j, memory in enumerate(scene["memories"]):
            metadata = memory.get("metadata")
            if not metadata:
                continue
            for key, item in metadata.items():
                if isinstance(item, (dict, list)):
                    found.extend(too_deep(item, MAX_ANSWER_DEPTH, (i, "memories", j, "metadata", key)))
    return found


def _within(pointer: str, ancestor: str) -> bool:
    return pointer == ancestor or pointer.startswith(ancestor + "/") or ancestor == ""


def _too_deep_message() -> str:
    return f"nested more than {MAX_ANSWER_DEPTH} levels deep (the contract's values are strings and id lists)"


def _schema_errors(value: Any) -> list[tuple[str, str]]:
    if accepts(value):
        return [(p, _too_deep_message()) for p in _deep_metadata(value)]
    deep = list(too_deep(value, MAX_ANSWER_DEPTH))
    if deep:
        # The schema sees a copy cut at the bound (its messages repr the
        # instance, which a value thousands deep cannot survive).
        value = pruned(value, MAX_ANSWER_DEPTH)
    found: list[tuple[str, str]] = [(p, _too_deep_message()) for p in deep]
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
    if deep:
        # One fault, one violation: the schema's words on the cut-off
        # placeholders are dropped, and so is a depth error under a value the
        # schema already faults (an unknown property, a content that is no string).
        faulted = [f[0] for f in found if f[1] != _too_deep_message()
                   and not any(_within(f[0], p) for p in deep)]
        found = [f for f in found if (f[0] in faulted and f[1] != _too_deep_message())
                 or (f[1] == _too_deep_message() and not any(_within(f[0], q) for q in faulted))]
    seen: set[tuple[str, str]] = set()
    unique = [f for f in found if not (f in seen or seen.add(f))]
    return sorted(unique, key=lambda f: _order_key(f[0]))


def _order_key(pointer: str) -> tuple[Any, ...]:
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in jp.split(pointer))


def _short(error: Any) -> str:
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."
