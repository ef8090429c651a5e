"""memvet: vet the long-term memory of AI coding assistants before it is written.

>>> import memvet
>>> report = memvet.validate(llm_text, context)      # doctest: +SKIP
>>> report.ok, [v.code for v in report.violations]  # doctest: +SKIP
"""

from __future__ import annotations

from .config import Config, discover_config, load_config_file
from .context import BatchContext, Message, load_context
from .engine import Engine, RuleContext, validate
from .errors import ConfigError, ContextError, MemvetError, PluginError
from .hookspecs import hookimpl
from .report import Report, Violation
from .rule import Finding, Rule, RuleOptions
from .version import __version__

__all__ = [
    "validate", "Engine", "Report", "Violation", "Rule", "RuleOptions", "Finding", "RuleContext",
    "Config", "load_config_file", "discover_config", "BatchContext", "Message", "load_context",
    "ContextError", "ConfigError", "MemvetError", "PluginError", "hookimpl", "__version__",
]
