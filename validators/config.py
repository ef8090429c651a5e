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

import os
import re
import tomllib
from stat import S_ISREG
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .batchfacts import FactsOptions
from .options import expand_extends
from .errors import ConfigError
from .vocabulary import Action

CONFIG_FILES = ("memvet.toml", "pyproject.toml")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # TOML is typed: "yes" is no bool


class RoutingConfig(_Strict):
    """How kept memories map to write-layer kinds and namespaces."""

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
    """The reference store (``memvet.store``): a SQLite file, or a team database by URL."""

    #: The SQLite file; relative paths are relative to the config file that names them.
    path: str = ".memvet/memory.db"
    #: A store URL (``postgresql://user@host/db``, ``sqlite:///path``); when set it wins over ``path``.
    url: str | None = None
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
    #: Run even when a plugin failed to load or a rule was refused (each report then
    #: says which with an E001 warning); by default that is an error (exit 2).
    allow_broken_plugins: bool = False
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
    if isinstance(data.get("facts"), dict):
        # The batch facts' word lists extend like a rule's ([facts] extend_accept = ["passt"]).
        facts_field = _field((prefix, "facts"))
        data = {**data, "facts": expand_extends(FactsOptions, data["facts"], file=source, field=facts_field)}
    try:
        return Config.model_validate({**data, "source": source})
    except ValidationError as exc:
        err = exc.errors()[0]
        msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        if not prefix and tuple(err["loc"][:1]) == ("tool",):
            # The commonest slip: a pyproject-style table pasted into memvet.toml.
            msg += " (memvet.toml holds the keys of [tool.memvet] at its top level: drop the 'tool.memvet.' prefix)"
        raise ConfigError(msg, file=source, field=_field((prefix, *err["loc"]))) from None


_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def _read_toml(path: Path) -> dict[str, Any]:
    """The TOML table of ``path``; a ConfigError naming ``file:line:column`` when it is not TOML."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror or exc}", file=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError("not valid TOML: the file is not UTF-8", file=f"{path}:{line}:{column}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        m = _TOML_POSITION.search(message)
        where = f"{path}:{m.group(1)}:{m.group(2)}" if m else str(path)
        if m is None and message.endswith("(at end of document)"):
            # tomllib names no line here: the error is where the text ends (an unclosed array...).
            lines = text.split("\n")
            where = f"{path}:{len(lines)}:{len(lines[-1]) + 1}"
            message = message[:-len("(at end of document)")].rstrip()
        raise ConfigError(f"not valid TOML: {_TOML_POSITION.sub('', message)}", file=where) from None


def load_config_file(path: str | Path) -> Config:
    path = Path(path)
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("memvet", {})
        return config_from_dict(table, source=str(path))
    return config_from_dict(data, source=str(path), prefix="")


def _has_memvet_table(pyproject: Path, stat: os.stat_result | None = None) -> bool:
    # A pyproject.toml that is not TOML is an error, not skipped: it may hold
    # the [tool.memvet] table the user meant (ruff does the same).
    stat = stat or pyproject.stat()
    key = (str(pyproject), stat.st_mtime_ns, stat.st_size)
    found = _pyprojects.get(key)
    if found is None:
        tool = _read_toml(pyproject).get("tool", {})
        found = _pyprojects[key] = isinstance(tool, dict) and "memvet" in tool
    return found


_pyprojects: dict[tuple[str, int, int], bool] = {}


def find_config(start: str | Path | None = None) -> Path | None:
    # validate(config=None) runs this on every call: plain os.path strings and
    # one stat per candidate (pathlib objects cost more than the stats did).
    if start:
        folder = os.path.realpath(os.fspath(start))
    else:  # a POSIX working directory is already free of symlinks ("." and ".." too)
        folder = os.getcwd() if os.name == "posix" else os.path.realpath(os.getcwd())
    while True:
        for name in CONFIG_FILES:
            candidate = os.path.join(folder, name)
            try:
                stat = os.stat(candidate)
            except (OSError, ValueError):
                continue
            if not S_ISREG(stat.st_mode):
                continue
            if name == "memvet.toml":
                return Path(candidate)
            if _has_memvet_table(Path(candidate), stat):
                return Path(candidate)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


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
    """The config found upward from ``start`` (the working directory), or the defaults.

    The same discovery for the CLI and for ``validate(config=None)``, so both
    give the same verdict in the same directory. A file is read again only
    when it changed (same path, size and modification time: the same Config
    object, so engines built for it are reused).
    """
    path = find_config(start)
    if path is None:
        return DEFAULT
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    config = _loaded.get(key)
    if config is None:
        config = load_config_file(path)
        if len(_loaded) > 32:
            _loaded.clear()
        _loaded[key] = config
    return config


_loaded: dict[tuple[str, int, int], Config] = {}


DEFAULT = Config()

