#!/usr/bin/env python3
"""Lists functions longer than a limit (120 lines by default) in C++ sources, for the rule
"no function in train/, model/ or generate/ is over 120 lines, except data tables".

A heuristic brace counter, not a parser: a function starts at a line at indent 0 or 2 that
ends with '{' and is not a namespace, class, struct, enum, or an initialised variable (so data
tables such as `const std::vector<Option> options = {` are not counted), and ends at the next
'}' at the same indent.

    scripts/function_lengths.py [--limit N] DIR...
"""
import argparse
import pathlib
import re

SKIP = re.compile(r"^\s*(namespace|struct|class|enum|extern|static const|const|constexpr)\b")
START = re.compile(r"^( {0,2})\S.*\{\s*$")


def long_functions(path, limit):
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        m = START.match(lines[i])
        if m and not SKIP.match(lines[i]) and "=" not in lines[i].split("(")[0]:
            end = re.compile("^" + m.group(1) + r"\}")
            j = i + 1
            while j < len(lines) and not end.match(lines[j]):
                j += 1
            if j - i + 1 > limit:
                yield j - i + 1, i + 1, lines[i].strip()
            i = j
        i += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=120)
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    found = 0
    for d in args.dirs:
        for path in sorted(pathlib.Path(d).rglob("*.c*")):
            for length, line, text in long_functions(path, args.limit):
                print(f"{path}:{line}: {length} lines: {text[:80]}")
                found += 1
    print(f"{found} function(s) over {args.limit} lines")


if __name__ == "__main__":
    main()
