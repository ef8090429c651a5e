"""The schema files themselves: ``load(name)`` reads one from the package data.

A leaf of :mod:`memvet.schemas`, so that :mod:`memvet.schemas.strict` can
read the contract without importing the package that re-exports it.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

OUTPUT = "extraction-output"
CONTEXT = "batch-context"


@cache
def _text(name: str) -> str:
    return resources.files(__package__).joinpath(f"{name}.schema.json").read_text("utf-8")


def load(name: str) -> dict[str, Any]:
    """Return a fresh copy of the named schema (callers may mutate it)."""
    return json.loads(_text(name))
