#!/usr/bin/env python3
"""Every bundled scenario validates against the scenario JSON Schema, and the schema in docs/
is what `lockstep schema` prints now (so editors get the tables as they are). Run by ctest
(scenarios.schema).

Usage: scripts/check-scenario-schema.py LOCKSTEP SOURCE_DIR   (exit 1 and a line per finding)
"""
import glob
import json
import os
import subprocess
import sys

import jsonschema
import yaml

lockstep, root = sys.argv[1], sys.argv[2]
os.chdir(root)
printed = json.loads(subprocess.run([lockstep, "schema"], check=True, capture_output=True, text=True).stdout)
findings = []
with open("docs/scenario.schema.json") as f:
    if json.load(f) != printed:
        findings.append("docs/scenario.schema.json is not what `lockstep schema` prints: "
                        "run `build/bin/lockstep schema -o docs/scenario.schema.json`")
jsonschema.Draft202012Validator.check_schema(printed)
validator = jsonschema.Draft202012Validator(printed)


# YAML 1.1 (PyYAML) reads `on`, `off`, `yes`, `no` as booleans and `1_000` as a number; the
# scenarios follow YAML 1.2 as yaml-cpp reads them, so only the core tags are resolved here.
class CoreLoader(yaml.SafeLoader):
    pass


CoreLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

# The schema does catch what it should: a misspelt workload key, an option the strategy does
# not take, an unknown property, a preset that does not exist.
for bad in ({"workload": {"kind": "lock-counter", "iteration": 3}},
            {"workload": {"kind": "lock-counter"}, "strategy": {"kind": "timed", "executions": 3}},
            {"workload": {"kind": "lock-counter"}, "properties": ["mutual_exclusions"]},
            {"machine": {"preset": "nehalem-3s"}}):
    if validator.is_valid(bad):
        findings.append(f"the schema accepts a wrong scenario: {bad}")

files = sorted(glob.glob("scenarios/**/*.yaml", recursive=True))
for path in files:
    with open(path) as f:
        doc = yaml.load(f, Loader=CoreLoader)
    for error in validator.iter_errors(doc):
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        findings.append(f"{path}: {where}: {error.message[:200]}")
for line in findings:
    print(line)
if findings:
    sys.exit(1)
print(f"scenario schema: {len(files)} bundled scenarios valid; docs/scenario.schema.json current")
