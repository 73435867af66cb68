"""``python -m hub`` is the ``trigono`` command."""

from hub.cli import main

raise SystemExit(main())
