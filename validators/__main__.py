"""``python -m memvet``: the same command line as the ``memvet`` script."""

from .cli import main

raise SystemExit(main())
