#!/usr/bin/env python3
"""Checks, without a container runtime, that the Dockerfile's runtime stage provides every shared
library the binary loads: each library `ldd BINARY` resolves here must belong to a package
(dpkg -S) that the runtime stage installs, that those pull in (apt-cache depends --recurse), or
that the stage's Debian base image has (its required packages and apt's dependencies). The
CUDA libraries under /usr/local/cuda are the exception: the build stage copies them over.

    scripts/container/runtime_libraries.py [--dockerfile Dockerfile] BINARY

Prints each library with its package, and exits 1 naming the packages to add when one is not
provided (the image would fail at its first command: "error while loading shared libraries").
"""
import argparse
import re
import shlex
import subprocess
import sys


def runtime_stage(dockerfile):
    """The last stage's base image and the packages its RUN lines apt-get install."""
    text = open(dockerfile).read()
    lines = re.sub(r"\\\n", " ", text).splitlines()  # continuation lines joined
    stages = [i for i, line in enumerate(lines) if re.match(r"\s*FROM\s", line, re.I)]
    if not stages:
        raise SystemExit(f"{dockerfile}: no FROM line")
    base = lines[stages[-1]].split()[1]
    packages = []
    for line in lines[stages[-1]:]:
        if not re.match(r"\s*RUN\s", line, re.I):
            continue
        for command in re.split(r"&&|;|\|\|", line):
            words = shlex.split(command.replace("RUN ", " ", 1)) if "apt-get" in command else []
            if "install" in words:
                packages += [w for w in words[words.index("install") + 1:] if not w.startswith("-")]
    return base, packages


def linked_libraries(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    libraries = []
    for line in out.splitlines():
        if "not found" in line:
            raise SystemExit(f"{binary}: {line.strip()} here already")
        match = re.match(r"\s*(\S+) => (/\S+)", line)
        if match:
            libraries.append((match.group(1), match.group(2)))
    return libraries


def owner(path):
    """The package that ships `path` (merged /usr: Debian 12 records some under /lib, some under
    /usr/lib)."""
    candidates = [path, "/usr" + path if not path.startswith("/usr/") else path[4:]]
    real = subprocess.run(["readlink", "-f", path], capture_output=True, text=True).stdout.strip()
    candidates += [real, "/usr" + real if not real.startswith("/usr/") else real[4:]]
    for candidate in candidates:
        result = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.split(":")[0].split(",")[0].strip()
    return None


def closure(packages):
    """The packages and everything they depend on (Depends and Pre-Depends, recursively)."""
    if not packages:
        return set()
    out = subprocess.run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
                          "--no-breaks", "--no-replaces", "--no-enhances", *packages],
                         capture_output=True, text=True).stdout
    return {line.strip().split(":")[0] for line in out.splitlines() if line and not line.startswith(" ")
            and not line.startswith("<")}


def base_image_packages():
    """What a Debian base image holds: the required packages and apt, with their dependencies."""
    listing = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Priority} ${Essential}\n"],
                             capture_output=True, text=True).stdout
    required = []
    for line in listing.splitlines():
        fields = line.split(" ")
        if len(fields) >= 3 and (fields[1] == "required" or fields[2] == "yes"):
            required.append(fields[0])
    return closure(required + ["apt"])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary")
    p.add_argument("--dockerfile", default="Dockerfile")
    args = p.parse_args()
    base, installed = runtime_stage(args.dockerfile)
    provided = closure(installed) | base_image_packages()
    print(f"runtime stage: FROM {base}; apt-get install {' '.join(installed)}")
    missing = {}
    for name, path in linked_libraries(args.binary):
        if path.startswith("/usr/local/cuda"):
            print(f"  {name}: {path}: the CUDA toolkit's, copied from the build stage")
            continue
        package = owner(path)
        ok = package in provided
        print(f"  {name}: {package or 'no package'}{'' if ok else '  <- NOT IN THE RUNTIME STAGE'}")
        if not ok:
            missing.setdefault(package or path, []).append(name)
    if missing:
        print(f"{args.dockerfile}: the runtime stage lacks what {args.binary} loads: " +
              "; ".join(f"{pkg} (for {', '.join(libs)})" for pkg, libs in sorted(missing.items())) +
              ". Add the packages to its apt-get install.", file=sys.stderr)
        return 1
    print(f"every library {args.binary} loads is provided by the runtime stage")
    return 0


if __name__ == "__main__":
    sys.exit(main())
