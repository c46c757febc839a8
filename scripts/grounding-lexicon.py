#!/usr/bin/env python3
"""The English words of src/pipe/grounding/lexicon.rs, counted in BFCL's public tool definitions.

    python3 -m pip download --no-deps -d /tmp/bfcl bfcl-eval==2026.3.23
    unzip -q /tmp/bfcl/bfcl_eval-*.whl -d /tmp/bfcl/x
    python3 scripts/grounding-lexicon.py /tmp/bfcl/x/bfcl_eval/data
    python3 scripts/grounding-lexicon.py /tmp/bfcl/x/bfcl_eval/data \
        --missing src/pipe/grounding/lexicon.rs

Reads every BFCL_v4_*.json there (JSON lines; an entry's "function" is a list of tool
definitions) and collects, per distinct tool name, the words of every string enum member
and of every boolean property's name (snake_case, camelCase and kebab-case split,
lowercased). Prints the words used by at least MIN_TOOLS tools, most used first, with their
tool counts, less stop words, single letters, numbers, codes (ISO languages, countries,
currencies, file formats, HTTP methods), units, proper nouns (airlines, places, products,
models), words that are no choice a user says in other words, and words that descriptions
use more than members do, whose translations would name a number ("la chambre 7" is no
guest count for "guests staying in the room") (DROP, chosen by reading the output), then the words added by hand (EXTRA): common six-language enum concepts that
BFCL has fewer times, and the vocabulary of everyday tool schemas that BFCL lacks (smart
home, sharing, listings, issue trackers, git, sort orders, channels, travel, payment,
status, colours). With --missing LEXICON_RS, prints instead the words of both lists that
the lexicon's table lacks.

Only the English words come from this script. Their Spanish, French, German, Portuguese and
Italian translations in lexicon.rs were written by hand.
"""

import collections
import glob
import json
import os
import re
import sys

MIN_TOOLS = 2
DROP = set("""
a an the of to in at for with by from is has me one two other only no dontcare built offbeat
and any if not than out go sub non mid plus ago turn
en de fr es it zh fi pt cn hi us usd eur gbp jpy uns dd yyyy wi sci suv vip imax id mm xl 3d
da ko dx co2 v2 sku sql rgb jwt ice
celsius fahrenheit kelvin degrees json xml png html bmp gif jpeg jpg csv pdf get post put patch
head geojson geocodejson jsonv2 gzip tar zip mp3 wav
python java ruby york canada asia united delta southwest south sebelas maret pingfest hindi pop
rock alaska australia brasil california europe france japan latam london tokyo lot airlines
airways bing google duck uber gpt claude haiku mandarin
anime premium ethernet runtime locale freeform busywork persona brute cross denial factor
pass playing hatchback room
""".split())
ABBREVIATIONS = {"asc", "desc", "min", "max", "avg"}
EXTRA = """window aisle middle seat indoor outdoor terrace ascending descending economy business
first class vegetarian vegan gluten free morning afternoon evening night low medium high urgent
male female public private enabled disabled on off metric imperial daily weekly monthly yearly
notify notification immediate immediately min max avg minimum maximum
motion detection lock locked unlock unlocked heating heat cooling fan camera doorbell alarm eco
away sleep armed disarmed siren sensor recording vacation
share shared doctor friends contacts everyone team visible
rent rental sale buy sell lease purchase
spreadsheet document presentation audio video image archive
bug feature question incident task epic story improvement enhancement blocker minor
merge squash rebase branch
cheapest newest oldest latest recent popular popularity distance nearest closest alphabetical
expensive lowest highest best
call phone message voice
nonstop trip flight luggage baggage lunch dinner
card cash wallet invoice bank refund
never always once weekend weekends weekdays today yesterday tonight now later next last previous
current
failed failure confirmed rejected approved approve reject declined delivered shipped processing
scheduled published paid unpaid refunded blocked waiting accepted assigned verified offline busy
important favorite sent trash inbox reply
warm cold gray orange purple pink brown
pickup takeout shipping express electric compact automatic apartment house hostel double
dog cat portuguese japanese thai greek korean mediterranean
mute muted silent sound recurring repeat senior student infant meeting appointment smoking""".split()


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


def missing(words, lexicon_rs):
    """The words that the lexicon's table (its rows and abbreviations) lacks."""
    source = open(lexicon_rs, encoding="utf-8").read()
    listed = set(re.findall(r'^    \("([a-z]+)",', source, re.M))
    return [w for w in words if w not in listed]


def main(folder, lexicon_rs=None):
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
    if lexicon_rs:
        for w in missing(kept + [w for w in EXTRA if w not in kept], lexicon_rs):
            print(w)
        return
    for w in kept:
        print(f"{w}\t{len(tools[w])}")
    for w in EXTRA:
        if w not in kept:
            print(f"{w}\t{len(tools.get(w, ()))}\textra")
    print(f"{len(kept)} words from BFCL, {len(set(EXTRA) - set(kept))} extra", file=sys.stderr)


if __name__ == "__main__":
    args = sys.argv[1:]
    lexicon = None
    if "--missing" in args:
        at = args.index("--missing")
        lexicon = args[at + 1]
        del args[at : at + 2]
    main(args[0] if args else ".", lexicon)
