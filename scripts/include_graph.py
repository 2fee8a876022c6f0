#!/usr/bin/env python3
"""The include graph of precis's source folders, checked against docs/architecture.md.

Each folder under src/precis (core, kernels, model, ...) is one node; folder A uses folder B when
a file under A has `#include "precis/B/..."`. The check fails (exit 1) when the graph has a
cycle, naming the cycle and a file that makes each of its edges, and when the `uses` column of
architecture.md's layer table differs from the graph, naming the folder and the difference.

Usage: scripts/include_graph.py [--source DIR] [--doc FILE]   (defaults: this repository's)
"""
import argparse
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"precis/([A-Za-z0-9_]+)/', re.MULTILINE)
SOURCE_SUFFIXES = {".h", ".cpp", ".cu", ".cuh"}


def folder_graph(source):
    """{folder: {used folder: a file of folder that includes it}}."""
    graph = {}
    for path in sorted(source.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
            continue
        folder = path.relative_to(source).parts[0]
        if folder == path.name:  # a file at the top of src/precis belongs to no layer
            continue
        edges = graph.setdefault(folder, {})
        for used in INCLUDE.findall(path.read_text(errors="replace")):
            if used != folder:
                edges.setdefault(used, path.relative_to(source.parent.parent))
    return graph


def find_cycle(graph):
    """One cycle as a list of folders [a, b, ..., a], or None."""
    state = {}  # folder: 1 on the current path, 2 done
    path = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for used in sorted(graph.get(node, {})):
            if state.get(used) == 1:
                return path[path.index(used):] + [used]
            if used not in state:
                found = visit(used)
                if found:
                    return found
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def documented_uses(doc):
    """{folder: set of folders} from the layer table's rows "| `folder/` | ... | uses |"."""
    uses = {}
    for line in doc.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        name = re.fullmatch(r"`([A-Za-z0-9_]+)/`", cells[0])
        if not name:
            continue
        column = cells[-1]
        uses[name.group(1)] = set() if column in ("—", "-", "") else {
            u.strip().strip("`").rstrip("/") for u in column.split(",")}
    return uses


def main():
    repo = pathlib.Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=pathlib.Path, default=repo / "src" / "precis")
    parser.add_argument("--doc", type=pathlib.Path, default=repo / "docs" / "architecture.md")
    args = parser.parse_args()

    graph = folder_graph(args.source)
    problems = []
    cycle = find_cycle(graph)
    if cycle:
        edges = [f"  {a} -> {b}: {graph[a][b]}" for a, b in zip(cycle, cycle[1:])]
        problems.append("the folders include each other in a cycle, " + " -> ".join(cycle) +
                        ":\n" + "\n".join(edges))
    documented = documented_uses(args.doc)
    for folder in sorted(set(graph) | set(documented)):
        actual = set(graph.get(folder, {}))
        if folder not in documented:
            problems.append(f"{args.doc}: no row for `{folder}/` (it uses {', '.join(sorted(actual)) or 'nothing'})")
            continue
        if folder not in graph:
            problems.append(f"{args.doc}: a row for `{folder}/`, which is not a folder of {args.source}")
            continue
        said = documented[folder]
        for extra in sorted(actual - said):
            problems.append(f"{args.doc}: `{folder}/` uses {extra} ({graph[folder][extra]}), "
                            "which its `uses` column leaves out")
        for missing in sorted(said - actual):
            problems.append(f"{args.doc}: `{folder}/`'s `uses` column names {missing}, "
                            "which no file of it includes")
    for folder in sorted(graph):
        print(f"{folder}: {', '.join(sorted(graph[folder])) or '-'}")
    if problems:
        print("\n".join("include graph: " + p for p in problems), file=sys.stderr)
        return 1
    print("include graph: no cycle; architecture.md's uses column matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
