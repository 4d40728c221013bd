#!/usr/bin/env python3
"""Validates an mmbench JSON document against src/mmbench/SCHEMA.md
(schema mmbench/1). Prints one line per problem and exits 1 if there is any,
0 when the document is valid.

usage: check_schema.py FILE [--command NAME] [--status BENCH=STATUS ...]
                       [--shape BENCH=SHAPE ...]

--shape: that result has the "shape" parameter SHAPE (a result without one
must not be asked for). Whatever is asked, a "shape" parameter must be one
its benchmark has, with the parameters and metrics SCHEMA.md gives it.
"""
import json
import math
import statistics
import sys

BENCHES = {"fault", "migrate", "munmap", "exitdrain", "integrity", "contention", "compaction",
           "numa-hinting"}
problems = []

# SCHEMA.md "Shapes": the --shape values of each benchmark, the parameters a
# shape adds and the metrics it has (every metric name is one of these).
FAULT_METRICS = {"pages_per_s", "sys_s", "lru_lock_acq_per_1000_pages", "tlb_ipis_per_1000_pages"}
MUNMAP_METRICS = {"munmap_ops_per_s", "munmap_sys_s", "munmap_tlb_ipis_per_op"}
SHAPES = {
    "fault": {
        "page_fault1": ({}, FAULT_METRICS),
        "page_fault2": ({"backing": str}, FAULT_METRICS),
    },
    "munmap": {
        "default": ({}, MUNMAP_METRICS | {"dontneed_ops_per_s", "dontneed_sys_s",
                                          "dontneed_tlb_ipis_per_op"}),
        "ebizzy": ({"chunks": (int, float)}, MUNMAP_METRICS),
    },
}


def bad(where, msg):
    problems.append(f"{where}: {msg}")


def need(obj, key, types, where):
    if not isinstance(obj, dict) or key not in obj:
        bad(where, f"missing '{key}'")
        return None
    v = obj[key]
    if not isinstance(v, types) or (isinstance(v, bool) and bool not in (types if isinstance(types, tuple) else (types,))):
        bad(where, f"'{key}' has type {type(v).__name__}")
        return None
    return v


def check_system(s):
    w = "system"
    for k in ("kernel_release", "kernel_version", "machine", "hostname"):
        need(s, k, str, w)
    cfg = s.get("config", "absent")
    if cfg == "absent":
        bad(w, "missing 'config'")
    elif cfg is not None:
        need(cfg, "source", str, w + ".config")
        h = need(cfg, "sha256", str, w + ".config")
        if h is not None and (len(h) != 64 or any(c not in "0123456789abcdef" for c in h)):
            bad(w, "config.sha256 is not 64 hex digits")
    if s.get("cpu_model", "absent") == "absent":
        bad(w, "missing 'cpu_model'")
    n = need(s, "cpus_online", int, w)
    if n is not None and n < 1:
        bad(w, "cpus_online < 1")
    nodes = need(s, "numa_nodes", list, w)
    for i, node in enumerate(nodes or []):
        need(node, "node", int, f"{w}.numa_nodes[{i}]")
        need(node, "cpus", str, f"{w}.numa_nodes[{i}]")
        need(node, "mem_kib", int, f"{w}.numa_nodes[{i}]")
    if not nodes:
        bad(w, "numa_nodes is empty")
    if "thp_enabled" not in s:
        bad(w, "missing 'thp_enabled'")
    need(s, "lock_stat", bool, w)


def check_result(r, i):
    w = f"results[{i}]"
    name = need(r, "benchmark", str, w)
    if name is not None and name not in BENCHES:
        bad(w, f"unknown benchmark '{name}'")
    w = f"results[{i}]({name})"
    status = need(r, "status", str, w)
    if status not in ("ok", "skipped", "failed"):
        bad(w, f"bad status {status!r}")
    if status in ("skipped", "failed"):
        need(r, "reason", str, w)
    params = need(r, "params", dict, w)
    for k, v in (params or {}).items():
        if not isinstance(v, (int, float, str)) or isinstance(v, bool):
            bad(w, f"param '{k}' is not a number or string")
    reps = need(r, "repetitions", int, w)
    metrics = need(r, "metrics", list, w)
    if status == "ok" and not metrics:
        bad(w, "status ok but no metrics")
    for j, m in enumerate(metrics or []):
        mw = f"{w}.metrics[{j}]"
        mname = need(m, "name", str, mw)
        mw = f"{w}.metrics[{j}]({mname})"
        need(m, "unit", str, mw)
        if m.get("better") not in ("higher", "lower", "none"):
            bad(mw, f"bad 'better' {m.get('better')!r}")
        vals = need(m, "values", list, mw)
        if vals is not None:
            if not vals:
                bad(mw, "no values")
            elif reps is not None and len(vals) != reps:
                bad(mw, f"{len(vals)} values for {reps} repetitions")
            nums = [v for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if len(nums) != len(vals):
                bad(mw, "a value is not a number")
            med = m.get("median")
            if nums and len(nums) == len(vals):
                if not isinstance(med, (int, float)) or not math.isclose(
                        med, statistics.median(nums), rel_tol=1e-6, abs_tol=1e-9):
                    bad(mw, f"median {med!r} is not the median of the values")
    check_shape(r, w, name, params or {}, metrics or [])
    c = r.get("counters", "absent")
    if c == "absent":
        bad(w, "missing 'counters'")
    elif c is None:
        if status == "ok":
            bad(w, "status ok but counters is null")
    else:
        vm = need(c, "vmstat", dict, w + ".counters")
        for k, v in (vm or {}).items():
            if not isinstance(v, int) or isinstance(v, bool):
                bad(w, f"vmstat delta '{k}' is not an integer")
        for k in ("tlb_interrupts", "lru_lock_acquisitions"):
            if k not in c:
                bad(w, f"counters lacks '{k}'")
            elif c[k] is not None and (not isinstance(c[k], int) or c[k] < 0):
                bad(w, f"counters.{k} is not a count")


def check_shape(r, w, name, params, metrics):
    shape = params.get("shape")
    if shape is None:
        return
    if name not in SHAPES:
        bad(w, f"param 'shape' on {name}, which has no shapes")
        return
    if shape not in SHAPES[name]:
        bad(w, f"unknown shape {shape!r} of {name} (one of {', '.join(SHAPES[name])})")
        return
    extra, allowed = SHAPES[name][shape]
    for k, types in extra.items():
        if not isinstance(params.get(k), types):
            bad(w, f"shape {shape}: param '{k}' missing or of the wrong type")
    for m in metrics:
        if isinstance(m, dict) and m.get("name") not in allowed:
            bad(w, f"shape {shape}: metric {m.get('name')!r} is not one of its metrics")


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path, args = argv[1], argv[2:]
    want_cmd, want_status, want_shape = None, {}, {}
    while args:
        opt = args.pop(0)
        if opt == "--command" and args:
            want_cmd = args.pop(0)
        elif opt == "--status" and args:
            b, _, s = args.pop(0).partition("=")
            want_status[b] = s
        elif opt == "--shape" and args:
            b, _, s = args.pop(0).partition("=")
            want_shape[b] = s
        else:
            print(f"check_schema: bad argument {opt!r}", file=sys.stderr)
            return 2
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: {e}")
        return 1
    if not isinstance(doc, dict):
        print(f"{path}: top level is not an object")
        return 1
    if doc.get("schema") != "mmbench/1":
        bad("top", f"schema is {doc.get('schema')!r}, expected 'mmbench/1'")
    need(doc, "mmbench_version", str, "top")
    cmd = need(doc, "command", str, "top")
    if want_cmd and cmd != want_cmd:
        bad("top", f"command is {cmd!r}, expected {want_cmd!r}")
    need(doc, "finished", str, "top")
    need(doc, "duration_s", (int, float), "top")
    s = need(doc, "system", dict, "top")
    if s is not None:
        check_system(s)
    results = need(doc, "results", list, "top")
    for i, r in enumerate(results or []):
        if isinstance(r, dict):
            check_result(r, i)
        else:
            bad(f"results[{i}]", "not an object")
    if results is not None and not results:
        bad("top", "results is empty")
    got = {r.get("benchmark"): r.get("status") for r in results or [] if isinstance(r, dict)}
    for b, st in want_status.items():
        if got.get(b) != st:
            bad("top", f"expected {b} status {st!r}, got {got.get(b)!r}")
    shapes = {r.get("benchmark"): (r.get("params") or {}).get("shape")
              for r in results or [] if isinstance(r, dict)}
    for b, sh in want_shape.items():
        if shapes.get(b) != sh:
            bad("top", f"expected {b} shape {sh!r}, got {shapes.get(b)!r}")
    for p in problems:
        print(f"{path}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
