"""Collect rule classes and formatters from built-in and third-party plugins.

Loading never fails as a whole: a plugin that cannot be imported, a rule
whose code clashes with one already loaded, or a third-party rule that uses
a built-in prefix is left out and listed in :attr:`Registry.problems`
(``memvet rules`` prints them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from typing import Any, Callable

import pluggy

from . import hookspecs
from .needs import needs_problem
from .rule import ACTIONS, MEMORY_TYPES, TARGETS, Rule

BUILTIN_FAMILIES = ("S", "I", "T", "L", "G", "M", "W", "P", "Q", "E")
# Execution order of the families: privacy first, so nothing later echoes a
# secret; then shape, identity and types; then the value judgments.
FAMILY_ORDER = {fam: i for i, fam in enumerate("SPITQLGMWE")}
BUILTIN_MODULE = "memvet.rules"

_BUILTIN_CODE = re.compile(r"^[A-Z][0-9]{3}$")
_PLUGIN_CODE = re.compile(r"^[A-Z]{2,4}[0-9]{3}$")


@dataclass
class Registry:
    rules: dict[str, type[Rule]] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)  # code -> plugin name
    formats: dict[str, Callable[..., str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def ordered(self) -> list[type[Rule]]:
        def key(cls: type[Rule]) -> tuple[int, str]:
            return (FAMILY_ORDER.get(cls.code[0], len(FAMILY_ORDER)) if self.is_builtin(cls.code) else 99, cls.code)
        return sorted(self.rules.values(), key=key)

    def is_builtin(self, code: str) -> bool:
        return self.origins.get(code) == "builtin"

    def _add_rule(self, cls: Any, plugin: str) -> None:
        code = getattr(cls, "code", None)
        problem = _rule_problem(cls, plugin)
        if problem is None and code in self.rules:
            problem = f"code {code} is already provided by plugin {self.origins[code]!r}"
        if problem:
            self.problems.append(f"plugin {plugin!r}: rule {code or cls!r} refused: {problem}")
            return
        self.rules[code] = cls
        self.origins[code] = plugin


def _rule_problem(cls: Any, plugin: str) -> str | None:
    if not (isinstance(cls, type) and issubclass(cls, Rule)):
        return "not a subclass of memvet.Rule"
    for attr in ("code", "name", "target", "action"):
        if not isinstance(getattr(cls, attr, None), str):
            return f"missing class attribute {attr!r}"
    if cls.target not in TARGETS:
        return f"target {cls.target!r} is not one of {', '.join(TARGETS)}"
    if cls.action not in ACTIONS:
        return f"action {cls.action!r} is not one of {', '.join(ACTIONS)}"
    types = getattr(cls, "types", None)
    if types is not None:
        # A typo here would silently switch the rule off: refuse it instead.
        if cls.target not in ("memory", "record"):
            return f"types applies to memory and record rules only, not to target {cls.target!r}"
        if isinstance(types, str) or not all(isinstance(t, str) and t in MEMORY_TYPES for t in types):
            return f"types {types!r} must be a set of memory types ({', '.join(MEMORY_TYPES)})"
    declared = needs_problem(cls)
    if declared is not None:
        return declared
    if plugin == "builtin":
        return None if _BUILTIN_CODE.match(cls.code) else "built-in codes are one letter and three digits"
    if _BUILTIN_CODE.match(cls.code) and cls.code[0] in BUILTIN_FAMILIES:
        return f"prefix {cls.code[0]!r} belongs to a built-in family"
    if not _PLUGIN_CODE.match(cls.code):
        return "third-party codes are two to four capital letters and three digits (ACME001)"
    return None


def _plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    return pm


def _collect(registry: Registry, pm: pluggy.PluginManager) -> None:
    for impl in pm.hook.memvet_rules.get_hookimpls():
        name = pm.get_name(impl.plugin) or repr(impl.plugin)
        try:
            classes = impl.function() or []
        except Exception as exc:  # a broken plugin is reported, not fatal
            registry.problems.append(f"plugin {name!r}: memvet_rules() raised {type(exc).__name__}: {exc}")
            continue
        for cls in classes:
            registry._add_rule(cls, name)
    for impl in pm.hook.memvet_formats.get_hookimpls():
        name = pm.get_name(impl.plugin) or repr(impl.plugin)
        try:
            formats = impl.function() or {}
        except Exception as exc:
            registry.problems.append(f"plugin {name!r}: memvet_formats() raised {type(exc).__name__}: {exc}")
            continue
        for fmt, func in formats.items():
            if fmt in registry.formats:
                registry.problems.append(f"plugin {name!r}: format {fmt!r} refused: already provided")
            else:
                registry.formats[fmt] = func


def build_registry(*, entry_points: bool = True, plugins: tuple[Any, ...] = ()) -> Registry:
    """Load built-in rules, then every ``memvet`` entry point, then ``plugins``.

    ``plugins`` lets tests and embedding programs register plugin objects
    directly without installing them.
    """
    import importlib

    pm = _plugin_manager()
    registry = Registry()
    pm.register(importlib.import_module(BUILTIN_MODULE), name="builtin")
    pm.register(importlib.import_module("memvet.formats"), name="builtin-formats")
    if entry_points:
        for ep in sorted(metadata.entry_points(group=hookspecs.PROJECT), key=lambda e: e.name):
            if ep.value.split(":")[0] == BUILTIN_MODULE:
                continue
            try:
                plugin = ep.load()
            except Exception as exc:
                registry.problems.append(f"plugin {ep.name!r} ({ep.value}) failed to load: {type(exc).__name__}: {exc}")
                continue
            if pm.is_registered(plugin):
                continue
            try:
                pm.register(plugin, name=ep.name)
            except Exception as exc:
                registry.problems.append(f"plugin {ep.name!r} refused by pluggy: {exc}")
    for i, plugin in enumerate(plugins):
        if pm.is_registered(plugin):
            continue  # also installed: its entry point registered it already
        pm.register(plugin, name=getattr(plugin, "__name__", f"plugin-{i}"))
    # Built-ins first so a third-party clash is the one refused.
    builtin_pm = _plugin_manager()
    builtin_pm.register(pm.get_plugin("builtin"), name="builtin")
    _collect(registry, builtin_pm)
    pm.unregister(name="builtin")
    _collect(registry, pm)
    return registry


@cache
def default_registry() -> Registry:
    """The registry of this process: built-ins plus installed plugins, loaded once."""
    return build_registry()
