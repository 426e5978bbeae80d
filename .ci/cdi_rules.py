"""Check a CDI spec against the rules the CDI library applies beyond its JSON schema:
valid cdiVersion (exact list), the minimum version its features need, vendor/class and
device-name syntax, unique device names. Written from the CDI spec, independently of gpushare."""
import re
import sys

import yaml

VERSIONS = ["0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0"]
KIND_PART = re.compile(r"^[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?$")
DEVICE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?$")


def minimum(spec):
    edits = [spec.get("containerEdits") or {}] + [d.get("containerEdits") or {} for d in spec["devices"]]
    need = "0.3.0"
    vendor, _, cls = spec["kind"].partition("/")
    if any(m.get("type") for e in edits for m in e.get("mounts", [])):
        need = "0.4.0"
    if any(n.get("hostPath") for e in edits for n in e.get("deviceNodes", [])) or any(
        d["name"][:1].isdigit() for d in spec["devices"]
    ):
        need = "0.5.0"
    if spec.get("annotations") or any(d.get("annotations") for d in spec["devices"]) or "." in cls:
        need = "0.6.0"
    if any(e.get("additionalGids") or e.get("intelRdt") for e in edits):
        need = max(need, "0.7.0")
    return need


def check(path):
    with open(path) as f:
        spec = yaml.safe_load(f)
    problems = []
    version = str(spec.get("cdiVersion", ""))
    if version not in VERSIONS:
        problems.append(f"cdiVersion {version!r} is not a CDI version")
    elif VERSIONS.index(version) < VERSIONS.index(minimum(spec)):
        problems.append(f"cdiVersion {version} < {minimum(spec)} needed")
    vendor, _, cls = spec["kind"].partition("/")
    if not (KIND_PART.match(vendor) and KIND_PART.match(cls)):
        problems.append(f"kind {spec['kind']!r}")
    names = [d["name"] for d in spec["devices"]]
    for n in names:
        if not isinstance(n, str) or not DEVICE.match(n):
            problems.append(f"device name {n!r}")
    if len(set(map(str, names))) != len(names):
        problems.append("duplicate device names")
    for p in problems:
        print(f"{path}: {p}")
    return not problems


sys.exit(0 if all(check(p) for p in sys.argv[1:]) else 1)
