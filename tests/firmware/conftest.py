"""MicroPython-only scripts here are run by the unix port, never imported by pytest."""

collect_ignore = ["mp_heaplock.py", "mp_runner.py", "mp_e2e.py", "mp_e2e_esp32.py", "fake_machine"]
collect_ignore_glob = ["fake_machine/*"]
