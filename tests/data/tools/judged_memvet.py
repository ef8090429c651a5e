#!/usr/bin/env python3
"""``memvet`` with the LLM judge replayed from recorded verdicts, for ``score.py --cmd``.

    python ../shared/corpus/real/score.py --root tests/data/real \
        --cmd "python tests/data/tools/judged_memvet.py tests/data/real/judge/verdicts.jsonl"

score.py appends ``check ANSWER --context CONTEXT --format json``; this adds
``--judge-verdicts VERDICTS`` (see ``memvet check --help``), so the figures
are those of a pipeline that runs the judge on the memories it is unsure of.
Flags between VERDICTS and ``check`` (``--config judge-low-only.toml``) are
passed on to ``memvet check``.
"""

import sys

from memvet.cli import main

if __name__ == "__main__":
    verdicts, *rest = sys.argv[1:]
    at = rest.index("check")
    sys.exit(main([*rest[at:], *rest[:at], "--judge-verdicts", verdicts]))
