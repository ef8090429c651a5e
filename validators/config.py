"""memvet configuration: ``[tool.memvet]`` in pyproject.toml, or memvet.toml.

Discovery walks up from the working directory and takes the first
``memvet.toml``, or ``pyproject.toml`` with a ``[tool.memvet]`` table.
Every key is checked: an unknown key, a bad action, an option a rule does
not have, a code no rule carries -- each is a :class:`ConfigError` naming
the file and the field (CLI exit 2), because a typo must never silently
switch a check off.

Example::

    [tool.memvet]
    select = ["ALL"]                 # code prefixes; "ALL" is every rule
    ignore = ["Q001"]                # longest matching prefix wins
    actions = { L006 = "reject" }    # per-code action overrides
    min_priority = 75                # T005 threshold
    fail_closed = true               # a crashing rule rejects (E001)

    [tool.memvet.rules.M004]         # per-rule options, by code
    zero_information = ["拍脑袋"]

    [tool.memvet.routing]
    repo = "demo"
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .batchfacts import FactsOptions
from .errors import ConfigError
from .rule import Action

CONFIG_FILES = ("memvet.toml", "pyproject.toml")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RoutingConfig(_Strict):
    """How kept memories map to write-layer kinds and namespaces (seed 004)."""

    repo: str = "default"
    kinds: dict[str, str] = Field(default_factory=lambda: {
        "work_fact": "project_fact",
        "work_artifact": "project_fact",
        "work_method": "code_preference",
        "work_task": "task_state",
    })
    namespaces: dict[str, str] = Field(default_factory=lambda: {
        "project_fact": "proj-{repo}-facts",
        "task_state": "task-{task_id}",
        "code_preference": "proj-{repo}-prefs",
    })
    ttl: dict[str, str] = Field(default_factory=lambda: {
        "project_fact": "none",
        "task_state": "on_task_close",
        "code_preference": "review_quarterly",
    })
    #: The ``scope`` of long-term records (W007 compares facts of one scope).
    scope: str = "repo:{repo}"


class StoreConfig(_Strict):
    """The reference store (``memvet.store``): where the SQLite file lives."""

    path: str = ".memvet/memory.db"
    #: Seconds a writer waits for another writer's lock before failing.
    busy_timeout: float = Field(default=10.0, gt=0)
    #: Days after which ``memvet store expire`` asks to review a code preference.
    review_days: int = Field(default=90, ge=1)


class ExtractorConfig(_Strict):
    model: str | None = None
    base_url: str | None = None
    max_repairs: int = Field(default=2, ge=0)
    token_budget: int = Field(default=60_000, ge=0)
    timeout: float = Field(default=60.0, gt=0)
    prompt: str | None = None
    # memvet.extractor: transport retries, structured-output mode, session windows, LLM judge.
    retries: int = Field(default=3, ge=0)
    structured: str = Field(default="auto", pattern="^(auto|json_schema|json_object|off)$")
    window: int = Field(default=10, ge=1)
    background: int = Field(default=4, ge=0)
    concurrency: int = Field(default=4, ge=1)
    judge: bool = False
    judge_model: str | None = None


class Config(_Strict):
    select: list[str] = Field(default_factory=lambda: ["ALL"])
    ignore: list[str] = Field(default_factory=list)
    actions: dict[str, Action] = Field(default_factory=dict)
    min_priority: int = Field(default=70, ge=0, le=100)
    fail_closed: bool = True
    show_unused_ignores: bool = False
    rules: dict[str, dict[str, Any]] = Field(default_factory=dict)
    routing: RoutingConfig = Field(default_factory=RoutingConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    extractor: ExtractorConfig = Field(default_factory=ExtractorConfig)
    #: What a low-confidence finding that would reject or drop does (CONTRACT.md section 3):
    #: "warn" lowers it to a warning, "keep" applies the rule's action anyway.
    low_confidence: Literal["warn", "keep"] = "warn"
    #: The word lists of the batch facts (memvet.batchfacts.FactsOptions).
    facts: FactsOptions = Field(default_factory=FactsOptions)
    #: Where this config came from (for error messages); not a config key.
    source: str | None = Field(default=None, exclude=True)

    def enabled(self, code: str) -> bool:
        """Longest matching prefix of ``select``/``ignore`` wins; ties go to ignore."""
        best, on = -1, False
        for prefix in self.select:
            p = "" if prefix == "ALL" else prefix
            if code.startswith(p) and len(p) > best:
                best, on = len(p), True
        for prefix in self.ignore:
            p = "" if prefix == "ALL" else prefix
            if code.startswith(p) and len(p) >= best:
                best, on = len(p), False
        return on


def _field(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc if p != "")  # memvet.toml has no "tool.memvet" prefix


def config_from_dict(data: dict[str, Any], *, source: str | None = None, prefix: str = "tool.memvet") -> Config:
    if not isinstance(data, dict):
        raise ConfigError("the memvet table must be a table", file=source, field=prefix)
    try:
        return Config.model_validate({**data, "source": source})
    except ValidationError as exc:
        err = exc.errors()[0]
        msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        raise ConfigError(msg, file=source, field=_field((prefix, *err["loc"]))) from None


def load_config_file(path: str | Path) -> Config:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror or exc}", file=str(path)) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"not valid TOML: {exc}", file=str(path)) from None
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("memvet", {})
        return config_from_dict(table, source=str(path))
    return config_from_dict(data, source=str(path), prefix="")


def find_config(start: str | Path | None = None) -> Path | None:
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        for name in CONFIG_FILES:
            candidate = folder / name
            if not candidate.is_file():
                continue
            if name == "memvet.toml":
                return candidate
            try:
                if "memvet" in tomllib.loads(candidate.read_text("utf-8")).get("tool", {}):
                    return candidate
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
                continue
    return None


def resolve_config(config: Config | dict[str, Any] | str | Path | None) -> Config:
    """Accept a Config, a dict (the ``[tool.memvet]`` table), a path, or None (defaults)."""
    if config is None:
        return DEFAULT
    if isinstance(config, Config):
        return config
    if isinstance(config, dict):
        return config_from_dict(config)
    return load_config_file(config)


def discover_config(start: str | Path | None = None) -> Config:
    path = find_config(start)
    return load_config_file(path) if path else DEFAULT


DEFAULT = Config()

