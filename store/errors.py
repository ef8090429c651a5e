"""Errors of the reference store (CLI exit 2, like every caller error)."""

from __future__ import annotations

from memvet.errors import MemvetError


class StoreError(MemvetError):
    """The store cannot do what was asked: a damaged or foreign file, an unknown id, a bad write."""


class RejectedReportError(StoreError):
    """``commit()`` was given a report with a ``reject``: it must be asked again, not stored."""
