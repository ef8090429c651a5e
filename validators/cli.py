"""The ``memvet`` command line.

Exit codes (CONTRACT.md section 4): 0 nothing rejected, 1 at least one
reject, 2 usage, context or config error (the message names file and field).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Callable, Sequence

from . import __version__
from .config import Config, discover_config, load_config_file
from .errors import MemvetError

EXIT_OK, EXIT_REJECT, EXIT_USAGE = 0, 1, 2

#: Subcommands added by other parts of memvet: name -> (add_parser, run).
#: Each module registers itself in ``_load_subcommands`` so the core CLI
#: stays small.
SUBCOMMAND_MODULES = ("memvet.cli_check", "memvet.cli_eval", "memvet.store.cli", "memvet.extractor.cli",
                      "memvet.cli_audit", "memvet.cli_serve")


def load_config(args: argparse.Namespace) -> Config:
    path = getattr(args, "config", None)
    return load_config_file(path) if path else discover_config()


def _cmd_rules(args: argparse.Namespace) -> int:
    from .engine import Engine

    config = load_config(args)
    engine = Engine(config)
    reg = engine.registry
    width = max((len(c.name) for c in reg.rules.values()), default=10)
    for cls in reg.ordered():
        bound = engine._bind(cls)
        enabled = "on " if config.enabled(cls.code) or getattr(cls, "engine_only", False) else "off"
        origin = reg.origins[cls.code]
        print(f"{cls.code:8} {cls.name:{width}}  {bound.action:6} {enabled} {cls.target:7} {origin}")
    for problem in reg.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return EXIT_OK


def _cmd_rule(args: argparse.Namespace) -> int:
    from .registry import default_registry
    import inspect

    reg = default_registry()
    cls = reg.rules.get(args.code.upper())
    if cls is None:
        print(f"memvet: no rule has the code {args.code!r} (see `memvet rules`)", file=sys.stderr)
        return EXIT_USAGE
    print(f"{cls.code} {cls.name} (default action: {cls.action}; target: {cls.target}; from {reg.origins[cls.code]})\n")
    print(inspect.cleandoc(cls.__doc__ or "(no documentation)"))
    opts = cls.Options.model_fields
    if opts:
        print("\nOptions:")
        for name, field in opts.items():
            default = field.get_default(call_default_factory=True)
            print(f"    {name} = {json.dumps(default, ensure_ascii=False)[:200]}")
            if field.description:
                print(f"        {field.description}")
    return EXIT_OK


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Callable[[argparse.Namespace], int]]]:
    parser = argparse.ArgumentParser(prog="memvet", description="Vet AI coding-assistant memories before they are written.")
    parser.add_argument("--version", action="version", version=f"memvet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    runners: dict[str, Callable[[argparse.Namespace], int]] = {}

    p = sub.add_parser("rules", help="list every loaded rule with code, name, action and origin")
    p.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")
    runners["rules"] = _cmd_rules

    p = sub.add_parser("rule", help="print the documentation of one rule")
    p.add_argument("code")
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
        print(f"memvet: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK

