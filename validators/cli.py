"""The ``memvet`` command line.

Exit codes: 0 nothing rejected, 1 at least one
reject, 2 usage, context or config error (the message names file and field).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable, Sequence

from . import __version__
from .config import Config, discover_config, load_config_file
from .error_text import scrubbed
from .errors import MemvetError

EXIT_OK, EXIT_REJECT, EXIT_USAGE = 0, 1, 2

#: Subcommands added by other parts of memvet: name -> (add_parser, run).
#: Each module registers itself in ``_load_subcommands`` so the core CLI
#: stays small.
SUBCOMMAND_MODULES = ("memvet.cli_check", "memvet.cli_eval", "memvet.store.cli", "memvet.extractor.cli",
                      "memvet.cli_audit", "memvet.cli_serve")


def load_config(args: argparse.Namespace, extra_rules: dict[str, Any] | None = None) -> Config:
    """The config file's config with the selection flags applied; ``extra_rules`` (code -> rule)
    are codes the flags may name beyond the registry's (the replayed judge's JDG rules)."""
    path = getattr(args, "config", None)
    config = load_config_file(path) if path else discover_config()
    return _with_selection(config, args, extra_rules or {})


def add_selection_options(p: argparse.ArgumentParser) -> None:
    """ruff's rule-selection flags: comma-separated code prefixes, repeatable; they win over the config."""
    for flag, what in (("--select", "check only these codes/prefixes (replaces the config's select and ignore)"),
                       ("--ignore", "do not check these codes/prefixes (added to the config's ignore)"),
                       ("--extend-select", "check these codes/prefixes as well"),
                       ("--extend-ignore", "like --ignore")):
        p.add_argument(flag, action="append", metavar="CODES", help=what)


def _with_selection(config: Config, args: argparse.Namespace, extra_rules: dict[str, Any]) -> Config:
    from .registry import default_registry
    from .selection import apply_selection, check_codes, split_codes

    flags = {name: split_codes(getattr(args, name, None))
             for name in ("select", "ignore", "extend_select", "extend_ignore")}
    if not any(v is not None for v in flags.values()):
        return config
    known = {**default_registry().rules, **extra_rules}
    for name, entries in flags.items():
        check_codes(entries or [], known, "--" + name.replace("_", "-"))
    return apply_selection(config, select=flags["select"], ignore=flags["ignore"] or (),
                           extend_select=flags["extend_select"] or (), extend_ignore=flags["extend_ignore"] or ())


def _cmd_rules(args: argparse.Namespace) -> int:
    from .engine import Engine

    # Listing the rules must work with a broken plugin installed: it is where the problem is shown.
    config = load_config(args).model_copy(update={"allow_broken_plugins": True})
    engine = Engine(config)
    reg = engine.registry
    rows = []
    for cls in reg.ordered():
        bound = engine.bind(cls)
        on = config.enabled(cls.code) or getattr(cls, "engine_only", False)
        rows.append({"code": cls.code, "name": cls.name, "action": bound.action, "enabled": bool(on),
                     "target": cls.target, "origin": reg.origins[cls.code], "summary": cls.summary()})
    if args.format == "json":
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        width = max((len(r["name"]) for r in rows), default=10)
        print(f"{'CODE':8} {'NAME':{width}}  {'ACTION':6} {'ON':3} {'TARGET':7} ORIGIN")
        for r in rows:
            print(f"{r['code']:8} {r['name']:{width}}  {r['action']:6} {'on' if r['enabled'] else 'off':3} "
                  f"{r['target']:7} {r['origin']}")
    for problem in reg.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return EXIT_OK


def _cmd_rule(args: argparse.Namespace) -> int:
    from .engine import Engine
    from .rule_docs import rule_text

    config = load_config(args)
    engine = Engine(config)
    reg = engine.registry
    wanted = args.code.strip()
    cls = reg.rules.get(wanted.upper()) or next((c for c in reg.rules.values() if c.name == wanted.lower()), None)
    if cls is None:
        print(f"memvet: no rule has the code or name {args.code!r} (see `memvet rules`)", file=sys.stderr)
        return EXIT_USAGE
    bound = engine.bind(cls)
    print(rule_text(cls, reg.origins[cls.code], bound.rule.options, bound.action, config.source))
    return EXIT_OK


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Callable[[argparse.Namespace], int]]]:
    parser = argparse.ArgumentParser(prog="memvet", description="Vet AI coding-assistant memories before they are written.")
    parser.add_argument("--version", action="version", version=f"memvet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    runners: dict[str, Callable[[argparse.Namespace], int]] = {}

    p = sub.add_parser("rules", help="list every loaded rule with code, name, action and origin")
    p.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")
    p.add_argument("--format", type=str.lower, choices=("text", "json"), default="text")
    add_selection_options(p)
    runners["rules"] = _cmd_rules

    p = sub.add_parser("rule", help="print the documentation of one rule, with its options as configured")
    p.add_argument("code", metavar="CODE|NAME")
    p.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")
    runners["rule"] = _cmd_rule

    import importlib

    for module_name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            if exc.name and module_name.startswith(exc.name):
                continue  # that part of memvet is not present in this build
            raise
        runners.update(module.register(sub))
    return parser, runners


def main(argv: Sequence[str] | None = None) -> int:
    parser, runners = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help/--version
        return int(exc.code or 0)
    if not args.command:
        parser.print_help()
        return EXIT_USAGE
    try:
        return runners[args.command](args)
    except MemvetError as exc:
        print(f"memvet: error: {scrubbed(exc)}", file=sys.stderr)  # the refused text may be a token
        return EXIT_USAGE
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK

