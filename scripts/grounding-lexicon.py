#!/usr/bin/env python3
"""The English words of src/pipe/grounding/lexicon.rs, counted in BFCL's public tool definitions.

    python3 -m pip download --no-deps -d /tmp/bfcl bfcl-eval==2026.3.23
    unzip -q /tmp/bfcl/bfcl_eval-*.whl -d /tmp/bfcl/x
    python3 scripts/grounding-lexicon.py /tmp/bfcl/x/bfcl_eval/data

Reads every BFCL_v4_*.json there (JSON lines; an entry's "function" is a list of tool
definitions) and collects, per distinct tool name, the words of every string enum member
and of every boolean property's name (snake_case, camelCase and kebab-case split,
lowercased). Prints the words used by at least MIN_TOOLS tools, most used first, with their
tool counts, less stop words, single letters, numbers, codes (ISO languages, countries,
currencies, file formats, HTTP methods), units and proper nouns (the lists below, chosen by
reading the output), then the extra six-language enum concepts added by hand (EXTRA).

Only the English words come from this script. Their Spanish, French, German, Portuguese and
Italian translations in lexicon.rs were written by hand.
"""

import collections
import glob
import json
import os
import re
import sys

MIN_TOOLS = 3
DROP = set("""
a an the of to in at for with by from is has me one two other only no dontcare built offbeat
en de fr es it zh fi pt cn hi us usd eur gbp uns dd yyyy wi sci suv vip imax id mm xl 3d
celsius fahrenheit kelvin json xml png html bmp gif jpeg csv pdf get post put patch head
python java york canada asia united delta southwest south sebelas maret pingfest hindi pop rock
""".split())
ABBREVIATIONS = {"asc", "desc", "min", "max", "avg"}
EXTRA = """window aisle middle seat indoor outdoor terrace ascending descending economy business
first class vegetarian vegan gluten free morning afternoon evening night low medium high urgent
male female public private enabled disabled on off metric imperial daily weekly monthly yearly
notify notification immediate immediately min max avg minimum maximum""".split()


def words(name):
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", name) if w]


def walk(schema, tool, tools):
    if isinstance(schema, list):
        for item in schema:
            walk(item, tool, tools)
    if not isinstance(schema, dict):
        return
    for key, prop in (schema.get("properties") or {}).items():
        if isinstance(prop, dict) and str(prop.get("type", "")).lower() in ("boolean", "bool"):
            for w in words(key):
                tools[w].add(tool)
    for member in schema.get("enum") or []:
        if isinstance(member, str):
            for w in words(member):
                tools[w].add(tool)
    for value in schema.values():
        walk(value, tool, tools)


def main(folder):
    tools = collections.defaultdict(set)
    for path in sorted(glob.glob(os.path.join(folder, "BFCL_v4_*.json"))):
        for line in open(path, encoding="utf-8"):
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # BFCL_v4_format_sensitivity.json is one JSON object of ids
            for tool in (entry.get("function") or []) if isinstance(entry, dict) else []:
                walk(tool.get("parameters", {}), tool.get("name"), tools)
    kept = [
        w for w, t in tools.items()
        if len(t) >= MIN_TOOLS and w not in DROP and len(w) > 1 and not w.isdigit()
    ]
    kept.sort(key=lambda w: (-len(tools[w]), w))
    for w in kept:
        print(f"{w}\t{len(tools[w])}")
    for w in EXTRA:
        if w not in kept:
            print(f"{w}\t{len(tools.get(w, ()))}\textra")
    print(f"{len(kept)} words from BFCL, {len(set(EXTRA) - set(kept))} extra", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
