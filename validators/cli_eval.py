"""``memvet eval``: score the rules against a labelled corpus."""

from __future__ import annotations

import argparse
import json
from typing import Any, Callable

EXIT_OK = 0


def register(sub: Any) -> dict[str, Callable[[argparse.Namespace], int]]:
    p = sub.add_parser(
        "eval", help="score the rules against a labelled corpus (per-code precision/recall, clean FP rate)",
        description="Run every item of a labelled JSONL corpus (the format of corpus/dev/README.md) and print "
                    "per code TP/FP/FN, precision and recall, and the share of clean items any G/M/L/P/Q/W "
                    "code touched.")
    p.add_argument("corpus", help="the corpus JSONL file")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--config", help="config file (default: memvet.toml or [tool.memvet] found upward)")
    p.add_argument("--show-misses", action="store_true", help="list every item whose codes differ from its labels")
    return {"eval": run_eval}


def run_eval(args: argparse.Namespace) -> int:
    from .cli import load_config
    from .evaluate import evaluate, format_text

    result = evaluate(args.corpus, config=load_config(args))
    if args.format == "json":
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(format_text(result, show_misses=args.show_misses))
    return EXIT_OK
