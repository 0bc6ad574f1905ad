#!/usr/bin/env python3
"""The layers hold: every `#include "X/..."` of a project folder names a folder whose library
the including folder's CMake targets link, directly or through another (the link graph of
the lockstep_* libraries, read from each folder's CMakeLists.txt); and no target links a
lockstep_* library whose folder none of its folder's files include; and the folders below
reach the ones named only through another layer, never by an include of their own (the
command line reaches the native platform and the SMT checker through the driver; scenario
files are data, loaded without the simulator's runners or real threads). Run by .ci/run.

Usage: scripts/check-layers.py [SOURCE_DIR]   (exit 1 and one line per finding when it fails)
"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
os.chdir(root)
# The folders that hold libraries, and so layers.
folders = sorted(d for d in os.listdir(".") if os.path.isfile(os.path.join(d, "CMakeLists.txt"))
                 and d not in ("tests", "bench", "fuzz", "build") and not d.startswith("."))

target_folder = {}
links = {}  # target -> the lockstep_* targets it links
for f in folders:
    text = open(os.path.join(f, "CMakeLists.txt")).read()
    for m in re.finditer(r"add_(?:library|executable)\(([\w-]+)", text):
        target_folder[m.group(1)] = f
for f in folders:
    text = open(os.path.join(f, "CMakeLists.txt")).read()
    for m in re.finditer(r"target_link_libraries\(([\w-]+)([^)]*)\)", text, re.S):
        body = re.sub(r"#[^\n]*", "", m.group(2))
        links.setdefault(m.group(1), set()).update(re.findall(r"\blockstep_\w+", body))

direct = {f: set() for f in folders}
for target, deps in links.items():
    here = target_folder.get(target)
    if here is None:
        continue
    for d in deps:
        there = target_folder.get(d)
        if there is not None and there != here:
            direct[here].add(there)


def reachable(f):
    seen, frontier = set(), [f]
    while frontier:
        for d in direct[frontier.pop()]:
            if d not in seen:
                seen.add(d)
                frontier.append(d)
    return seen


# folder -> folders it may reach only through another layer (docs/architecture.md, "Layers").
THROUGH_ANOTHER = {
    "cli": {"native", "axiomatic"},
    "gui": {"cli", "driver", "sim", "model", "native", "spec"},
    "native": {"sim", "model", "spec", "driver"},
    "spec": {"native", "driver"},
    "report": {"spec", "driver", "sim", "model", "native", "cli"},
    "measure": {"sim", "native", "model", "spec", "driver"},
}

findings = []
included = {f: set() for f in folders}
for f in folders:
    allowed = reachable(f) | {f}
    for path in sorted(glob.glob(f + "/**/*.[ch]pp", recursive=True)):
        for number, line in enumerate(open(path, encoding="utf-8"), 1):
            m = re.match(r'\s*#\s*include\s+"(\w+)/', line)
            if not m or m.group(1) not in folders:
                continue
            included[f].add(m.group(1))
            if m.group(1) in THROUGH_ANOTHER.get(f, ()):
                findings.append(f"{path}:{number}: {f}/ includes {m.group(1)}/, which it reaches only through "
                                f"another layer (THROUGH_ANOTHER in scripts/check-layers.py)")
            elif m.group(1) not in allowed:
                findings.append(f"{path}:{number}: {f}/ includes {m.group(1)}/, which no library of {f}/ links "
                                f"(it links {', '.join(sorted(allowed - {f})) or 'nothing of the project'})")
for f in folders:
    for d in sorted(direct[f] - included[f]):
        findings.append(f"{f}/CMakeLists.txt: a library of {f}/ links {d}/'s, but no file of {f}/ includes {d}/")

for line in findings:
    print(line)
if findings:
    print(f"check-layers: {len(findings)} finding(s)")
    sys.exit(1)
print(f"check-layers: {len(folders)} folders, every include within the declared layers")
