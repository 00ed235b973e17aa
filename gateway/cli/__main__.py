"""``python -m gateway.cli``: the same as ``acteon-gateway``."""

from gateway.cli.app import main

raise SystemExit(main())
