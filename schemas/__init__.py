"""The JSON Schema documents of memvet's contracts, shipped as package data.

``load("extraction-output")`` and ``load("batch-context")`` return the parsed
documents; ``strict_output_schema()`` derives the variant that LLM
structured-output modes accept (see :mod:`memvet.schemas.strict`).
"""

from __future__ import annotations

from .documents import CONTEXT, OUTPUT, load
from .strict import strict_output_schema, to_strict

__all__ = ["load", "OUTPUT", "CONTEXT", "strict_output_schema", "to_strict"]
