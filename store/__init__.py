"""memvet's reference memory store (seed 004): facts, task state and preferences apart.

SQLite by default (stdlib ``sqlite3``, WAL, one transaction per commit with
the batch cursor inside it), PostgreSQL for teams (``open_store("postgresql://...")``,
:mod:`memvet.store.postgres`). All SQL lives in those two modules, behind
:class:`Store`; :mod:`memvet.store.review` is the review page (``memvet review``).

>>> from memvet.store import open_store
>>> store = open_store(":memory:")
>>> store.get_cursor("s-1"), store.scene_pool()
(0, [])

Public API: :func:`open_store`, :class:`Store` (``commit``, ``get_cursor``,
``scene_pool``, ``recall``, ``existing``, ``close_task``, ``review``,
``confirm``, ``invalidate``, ``expire``, ``audit``, ``crosscheck``,
``write``, ``events``, ``close``), :class:`CommitResult`,
:class:`StoreError`, :class:`RejectedReportError`.
"""

from .core import RECALL_STATUSES, CommitResult, Store, batch_key, open_store
from .errors import RejectedReportError, StoreError
from .text import classify_question

__all__ = ["open_store", "Store", "CommitResult", "StoreError", "RejectedReportError", "RECALL_STATUSES",
           "batch_key", "classify_question"]
