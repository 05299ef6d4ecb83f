#!/usr/bin/python3
"""Validates rdnactl's JSON documents against docs/schema/*.json.

usage: check.py SCHEMA_DIR LIST_FILE
LIST_FILE has one line per document: `<schema name> <json file>`.

Each schema is checked against the draft 2020-12 meta-schema
(Draft202012Validator.check_schema); every document must be valid JSON, start
with schema_version (then rdnactl_version), and validate against its schema
twice: as published (open objects) and closed (every object schema that lists
`properties` and does not set `additionalProperties` itself refuses other
keys), so that a key rdnactl writes but the schema does not describe fails
here.  Every schema must be used by at least one document.  Exit 0 all valid,
1 a failure, 2 cannot run (no jsonschema)."""
import copy
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("check.py: python3-jsonschema is not installed (apt-get install python3-jsonschema)", file=sys.stderr)
    sys.exit(2)


class Pairs(list):
    """A JSON object as its (key, value) pairs, in document order."""


def closed(schema):
    s = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(s)
    return s


def main():
    schema_dir, list_file = sys.argv[1], sys.argv[2]
    V = jsonschema.Draft202012Validator
    schemas, failures, used = {}, 0, {}
    for name in sorted(os.listdir(schema_dir)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(schema_dir, name)
        try:
            with open(path, encoding="utf-8") as f:
                s = json.load(f)
            V.check_schema(s)
        except (ValueError, jsonschema.exceptions.SchemaError) as e:
            print(f"FAIL schema {path}: {e}")
            failures += 1
            continue
        if s.get("$schema") != "https://json-schema.org/draft/2020-12/schema" or not s.get("$id"):
            print(f"FAIL schema {path}: needs $schema draft 2020-12 and an $id")
            failures += 1
        schemas[name[:-5]] = (V(s), V(closed(s)))
        used[name[:-5]] = 0
    with open(list_file, encoding="utf-8") as f:
        pairs = [line.split(None, 1) for line in f.read().splitlines() if line.strip()]
    for name, doc_path in pairs:
        if name not in schemas:
            print(f"FAIL {doc_path}: no schema {name}.json")
            failures += 1
            continue
        used[name] += 1
        try:
            with open(doc_path, encoding="utf-8") as f:
                pairs_doc = json.load(f, object_pairs_hook=Pairs)
            with open(doc_path, encoding="utf-8") as f:
                doc = json.load(f)
        except ValueError as e:
            print(f"FAIL {doc_path} ({name}): not JSON: {e}")
            failures += 1
            continue
        keys = [k for k, _ in pairs_doc] if isinstance(pairs_doc, Pairs) else []
        if keys[:2] != ["schema_version", "rdnactl_version"]:
            print(f"FAIL {doc_path} ({name}): the first keys are {keys[:2]}, not schema_version, rdnactl_version")
            failures += 1
        for label, v in zip(("published", "closed"), schemas[name]):
            errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
            for e in errs[:5]:
                where = "/".join(str(p) for p in e.absolute_path) or "(top)"
                print(f"FAIL {doc_path} ({name}.json, {label}): at {where}: {e.message[:300]}")
            failures += bool(errs)
    for name, n in sorted(used.items()):
        if n == 0:
            print(f"FAIL schema {name}.json: no document was checked against it")
            failures += 1
    total = len(pairs)
    print(f"{len(schemas)} schemas, {total} documents: {'all valid' if not failures else f'{failures} failure(s)'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
