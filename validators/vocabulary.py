"""The words every layer shares: actions, targets, memory types, write kinds, statuses.

A leaf module: it imports nothing of memvet, so the rule API, the rules, the
engine stages, routing and the store can all name these values without
importing one another. The tuples are the single source; the ``Literal``
types say the same for type checkers.
"""

from __future__ import annotations

from typing import Literal

#: What happens to what a finding points at (config can override a rule's default).
Action = Literal["reject", "drop", "fix", "warn"]
ACTIONS: tuple[Action, ...] = ("reject", "drop", "fix", "warn")

# What a rule looks at:
#   "parse"   the ParseResult of the raw answer (the S parse-stage rules)
#   "output"  the whole parsed output (a list of scenes), once per run
#   "scene"   each well-formed scene dict
#   "memory"  each well-formed memory dict (ctx.scene is its scene)
#   "record"  each routed write request (after decide; the W family)
Target = Literal["parse", "output", "scene", "memory", "record"]
TARGETS: tuple[Target, ...] = ("parse", "output", "scene", "memory", "record")

#: Targets whose rules may declare the memory types they apply to (``Rule.types``).
TYPED_TARGETS: tuple[Target, ...] = ("memory", "record")

#: The memory ``type`` values of the contract; what ``Rule.types`` may list.
MEMORY_TYPES: tuple[str, ...] = ("work_fact", "work_task", "work_method", "work_artifact")

#: Write-layer kinds a record is routed to, and those that outlive a task.
KINDS = ("project_fact", "task_state", "code_preference")
LONG_TERM_KINDS = ("project_fact", "code_preference")
#: A record's ``status`` values and its lifetimes (``ttl``).
STATUSES = ("active", "pending", "conflict", "invalid", "archived")
TTLS = ("none", "on_task_close", "review_quarterly")
