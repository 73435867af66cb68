# Runs every case of cases.py under the MicroPython unix port; one line per case:
# "PASS name" or "FAIL name: error". Started by test_logic.py from the repository root.
import sys

sys.path.insert(0, "")
sys.path.insert(0, "tests/firmware")

import cases  # noqa: E402

only = sys.argv[1:]
for name, fn in cases.all_cases():
    if only and name not in only:
        continue
    try:
        fn()
        print("PASS " + name)
    except Exception as err:  # noqa: BLE001 - report and go on
        print("FAIL " + name + ": " + repr(err))
        sys.print_exception(err)
