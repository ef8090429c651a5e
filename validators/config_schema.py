"""The JSON Schema of ``[tool.memvet]`` (and of a ``memvet.toml``), generated from the config models.

Shipped as ``memvet/schemas/memvet-config.schema.json`` so that editors
(Even Better TOML / taplo, VS Code, JetBrains) validate and complete the
table; ``tests/engine/test_robust_config_schema.py`` checks the shipped file is
what this module generates and that it accepts and refuses what the models
do. Regenerate it after changing an option::

    python -m memvet.config_schema
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from .batchfacts import FactsOptions
from .config import Config
from .options import EXTEND, word_lists
from .registry import Registry, build_registry
from .rule import ACTIONS

SCHEMA_NAME = "memvet-config"
#: Where the shipped copy lives (package data of memvet.schemas; the repo's schemas/ in a checkout).
SCHEMA_FILE = Path(str(resources.files("memvet.schemas"))) / f"{SCHEMA_NAME}.schema.json"
# Code prefixes in select/ignore; the loaded rules decide at run time (with "did you mean").
PREFIX_PATTERN = "^(ALL|[A-Z]{1,4}[0-9]{0,3})$"
PLUGIN_CODE_PATTERN = "^[A-Z]{2,4}[0-9]{3}$"


def _add_extends(props: dict[str, Any], options: Any) -> None:
    """An ``extend_<list>`` property beside each word list of ``options`` (a pydantic model class)."""
    for name in word_lists(options):
        props[EXTEND + name] = {"type": "array", "items": {"type": "string"},
                                "description": f"words added to the built-in `{name}` list (it is kept)"}


def _rule_options(cls: Any) -> dict[str, Any]:
    schema = cls.Options.model_json_schema()
    schema.pop("title", None)
    _add_extends(schema.setdefault("properties", {}), cls.Options)
    schema["additionalProperties"] = False
    schema["description"] = f"{cls.code} {cls.name}: {cls.summary().replace('``', '`')}"
    return schema


def config_schema(registry: Registry | None = None) -> dict[str, Any]:
    """The schema of the table, with the options of every rule of ``registry`` (built-ins by default)."""
    registry = registry or build_registry(entry_points=False)
    schema = Config.model_json_schema()
    schema["properties"].pop("source", None)  # where the config came from: not a key
    props = schema["properties"]
    for key in ("select", "ignore"):
        props[key]["items"] = {"type": "string", "pattern": PREFIX_PATTERN}
    facts = schema.get("$defs", {}).get("FactsOptions")
    if facts is not None:  # the batch facts' word lists extend like a rule's
        _add_extends(facts["properties"], FactsOptions)
    codes = sorted(registry.rules)
    props["actions"]["propertyNames"] = {"anyOf": [{"enum": codes}, {"pattern": PLUGIN_CODE_PATTERN}]}
    props["actions"]["additionalProperties"] = {"enum": list(ACTIONS)}
    props["rules"] = {
        "type": "object",
        "description": "per-rule options, by code; every word list may be replaced (`<list>`) or extended "
                       "(`extend_<list>`)",
        "properties": {code: _rule_options(registry.rules[code]) for code in codes
                       if registry.rules[code].Options.model_fields},
        "patternProperties": {PLUGIN_CODE_PATTERN: {"type": "object"}},
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://memvet.invalid/schemas/{SCHEMA_NAME}.schema.json",
        "title": "memvet configuration ([tool.memvet] in pyproject.toml, or memvet.toml)",
        **{k: v for k, v in schema.items() if k != "title"},
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, ensure_ascii=False, indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    target = Path(argv[0]) if argv else SCHEMA_FILE
    target.write_text(render(config_schema()), "utf-8")
    print(f"wrote {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
