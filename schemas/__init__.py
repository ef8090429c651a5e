"""The JSON Schema documents of memvet's contracts, shipped as package data.

``load("extraction-output")`` and ``load("batch-context")`` return the parsed
documents; ``strict_output_schema()`` derives the variant that LLM
structured-output modes accept (see :mod:`memvet.schemas.strict`).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from .strict import strict_output_schema, to_strict

__all__ = ["load", "OUTPUT", "CONTEXT", "strict_output_schema", "to_strict"]

OUTPUT = "extraction-output"
CONTEXT = "batch-context"


@cache
def _text(name: str) -> str:
    return resources.files(__name__).joinpath(f"{name}.schema.json").read_text("utf-8")


def load(name: str) -> dict[str, Any]:
    """Return a fresh copy of the named schema (callers may mutate it)."""
    return json.loads(_text(name))
