"""The ``trigono`` command line: entry point, subcommands, readable output (the hub is
assembled by :mod:`hub.assemble`, shared with the web's programs)."""
