"""MicroPython-only scripts here are run by the unix port, never imported by pytest."""

collect_ignore = ["fake_machine"]
collect_ignore_glob = ["mp_*.py", "fake_machine/*"]  # every mp_*.py runs under the unix port
