"""The ``trigono`` command line: entry point, subcommands, assembly, readable output."""
