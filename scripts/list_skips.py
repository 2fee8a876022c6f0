#!/usr/bin/env python3
"""Lists the tests ctest skipped, by name with the reason each printed, from ctest's JUnit
file (`ctest --output-junit`). ctest itself gives only their names. Under CI=true a skip
fails (exit 1): there setup has installed everything the suite needs. The exceptions are
tests whose every reason names what no setup can install: NO_SHARED_DATA (../shared beside
the checkout, which a clone made elsewhere does not have) or NO_CPU_FEATURE (an instruction set
the CI machine's CPU lacks, such as AMX; the test says which, and what covers the rest).

Reasons come from the test's own output: oracle files print `SKIPPED <test id>: <reason>`
(tests/oracle/conftest.py), GoogleTest prints the GTEST_SKIP message above `[  SKIPPED ]`.
"""
import os
import sys
import xml.etree.ElementTree as ET

# The words tests/oracle/conftest.py puts in the reason of a skip for want of ../shared.
NO_SHARED_DATA = "a clone without ../shared beside it"
# The words a test puts in the reason of a skip for want of an instruction set.
NO_CPU_FEATURE = "cannot run on this CPU"
EXCUSED = (NO_SHARED_DATA, NO_CPU_FEATURE)


def reasons(output):
    lines = output.splitlines()
    found = [line for line in lines if line.startswith("SKIPPED ")]
    # GoogleTest: "[ RUN      ] T", "file:line: Skipped", the message, "[  SKIPPED ] T (0 ms)".
    run_line = None
    for i, line in enumerate(lines):
        if line.startswith("[ RUN      ]"):
            run_line = i
        elif line.startswith("[  SKIPPED ]") and line.endswith(" ms)") and run_line is not None:
            message = " ".join(l.strip() for l in lines[run_line + 1:i] if l.strip() and not l.endswith(": Skipped"))
            found.append(f"{line[12:].strip()}: {message}")
    return found or ["(no reason printed)"]


def main(path):
    if not os.path.exists(path):
        print(f"list_skips: {path} not found (ctest --output-junit writes it)", file=sys.stderr)
        return 1
    skipped = []
    for case in ET.parse(path).getroot().iter("testcase"):
        marker = case.find("skipped")
        if marker is None:
            continue
        output = case.findtext("system-out") or ""
        skipped.append((case.get("name"), marker.get("message", ""), reasons(output)))
    in_ci = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
    print(f"skipped tests: {len(skipped)}")
    for name, marker, why in skipped:
        print(f"  {name} ({marker})")
        for line in why:
            print(f"      {line}")
    failing = [name for name, _, why in skipped
               if not all(any(excuse in line for excuse in EXCUSED) for line in why)]
    if failing and in_ci:
        print(f"FAILED: {len(failing)} tests were skipped under CI=true, where scripts/setup.sh installs "
              "everything the suite needs", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
