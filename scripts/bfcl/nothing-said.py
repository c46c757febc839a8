"""How often a call's values are all unsaid in the stored BFCL runs, and in which cases: the
offline measure of `translate::nothing_said`'s first form (three values or more, none traced by
grounding, no text value sharing a third of its words with the request) and of
`translate::facts_not_said` (every required value unsaid, a number, a day, a time or an
example copied from the schema among them) applied to every delivered call of every mode, by group, verdict and form. No model; `touches` is approximated here
(words of three letters or more, a plural's `s` ignored).

    ~/.cache/plaincall-bfcl/venv/bin/python scripts/bfcl/nothing-said.py
"""
import json, re, subprocess, sys, collections
from pathlib import Path
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO/'scripts/bfcl'))
import bfcl_eval_run as run
bfcl = run.load_bfcl()
allcases = {c['id']: c for c in run.load_cases(bfcl)}
rows = []
for f in sorted(REPO.glob('docs/bfcl/**/cases.jsonl')):
    for l in f.read_text().splitlines():
        if l.strip():
            r = json.loads(l); r['_dir'] = f.parent.name; rows.append(r)
inputs, meta = [], {}
def strings(v, out):
    if isinstance(v, str): out.append(v)
    elif isinstance(v, dict): [strings(x, out) for x in v.values()]
    elif isinstance(v, list): [strings(x, out) for x in v]
for r in rows:
    case = allcases.get(r['id'])
    if not case: continue
    text = "\n".join(m['content'] for m in case['messages'] if m.get('role') == 'user')
    tools = {t['function']['name']: t['function'].get('parameters') or {} for t in case['tools']}
    described = {t['function']['name']: t['function'].get('description') or '' for t in case['tools']}
    for i, call in enumerate(r.get('calls') or []):
        try: a = json.loads(call['arguments'])
        except Exception: continue
        if call['name'] not in tools or not isinstance(a, dict): continue
        key = f"{r['_dir']}|{r['mode']}|{r['id']}|{i}"
        meta[key] = (r, call, a, text, tools[call['name']], described[call['name']])
        inputs.append(json.dumps({'id': key, 'text': text, 'today': '2026-11-27', 'schema': tools[call['name']], 'arguments': a}))
out = subprocess.run(['cargo','run','--quiet','--example','reground'], cwd=REPO, input='\n'.join(inputs)+'\n', capture_output=True, text=True)
res = {json.loads(l)['id']: json.loads(l) for l in out.stdout.splitlines()}
words = lambda s: [w for w in re.findall(r"\w+", s.lower()) if len(w) >= 3]
tally = collections.Counter(); ex = []
def initials_said(v, text):
    words = v.split(',')[0].split()
    if len(words) < 2: return False
    return ''.join(w[0] for w in words) in re.findall(r"\w+", text)
def quoted(description, t):
    return any(f"{o}{t}{c}" in (description or '') for o, c in (("'", "'"), ('"', '"'), ('‘', '’'), ('“', '”')))
def copied(k, v, schema, description, text):
    """A place, name or address of two words or more (each with a capital or a digit) that the
    tool's description or the property's quotes or lists as an example: not a member, not the
    default, not said by its initials in capitals (translate::copied_from_schema)."""
    if not isinstance(v, str): return False
    t = v.strip(); words = t.split()
    if len(words) < 2 or not all(w[:1].isupper() or w[:1].isdigit() for w in words): return False
    if initials_said(t, text): return False
    p = (schema.get('properties') or {}).get(k) or {}
    if t == p.get('default') or t in (p.get('enum') or []): return False
    return t in (p.get('examples') or []) or quoted(p.get('description'), t) or quoted(description, t)
for key, (r, call, a, text, schema, description) in meta.items():
    x = res.get(key)
    if not x or 'error' in x: continue
    d = x['decisions']
    req = schema.get('required') or []
    allun = len(d) >= 3 and all(v['rule'] == 'unsaid' for v in d)
    ss = []; strings(a, ss)
    tw = set(words(text))
    touch = any((lambda c: c and sum(w in tw or w[:-1] in tw or w+'s' in tw for w in c)*3 >= len(c) and sum(w in tw or w[:-1] in tw or w+'s' in tw for w in c) > 0)(words(s)) for s in ss)
    req_in = [k for k in req if k in a]
    all_required = bool(req_in) and all(any(v['path'] == k and v['rule'] == 'unsaid' for v in d) for k in req_in)
    when = lambda v: (isinstance(v, (int, float)) and not isinstance(v, bool)) or (
        isinstance(v, str) and bool(re.match(r"^\d{4}-\d{2}-\d{2}|^\d{1,2}:\d{2}", v)))
    first = allun and not touch
    third = all_required and any(when(a[k]) or copied(k, a[k], schema, description, text) for k in req_in) and not touch
    flag = 'nothing said' if first else 'not said' if third else ''
    grp = 'irrelevance' if r['group'] == 'irrelevance' else 'relevant'
    tally[(r['mode'], grp, r['passed'], flag)] += 1
    if flag: ex.append(f"{flag}: {grp} passed={r['passed']} {r['mode']} {r['_dir']} {r['id']} {call['name']} {json.dumps(a)[:150]} || {text[:100]!r}")
for k in sorted(tally): print(k, tally[k])
print('\n'.join(ex))
