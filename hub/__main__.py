"""``python -m hub`` is the ``trigono`` command."""

from hub.cli.main import main

raise SystemExit(main())
