"""The two hooks a memvet plugin can implement.

A plugin is any module or object registered under the ``memvet`` entry
point group; built-in families register through the same hooks::

    # pyproject.toml of your plugin
    [project.entry-points.memvet]
    acme = "acme_memvet"

    # acme_memvet/__init__.py
    import memvet

    @memvet.hookimpl
    def memvet_rules():
        return [NoTicketNumbers]

pluggy is used for discovery only: the engine collects the classes once and
runs them itself, so ordering, selection and crash isolation stay memvet's.
"""

from __future__ import annotations

import pluggy

PROJECT = "memvet"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def memvet_rules() -> list[type]:
    """Return the rule classes this plugin provides.

    Each class subclasses :class:`memvet.Rule`. Third-party codes use a
    prefix of two to four capital letters followed by three digits
    (``ACME001``); codes that clash with a loaded rule or use a built-in
    one-letter family prefix are refused at load time.
    """


@hookspec
def memvet_formats() -> dict[str, object]:
    """Return report formatters by name, for ``memvet check --format NAME``.

    A formatter is a callable ``(report, *, source, color) -> str`` returning
    the text to print for one report.
    """
