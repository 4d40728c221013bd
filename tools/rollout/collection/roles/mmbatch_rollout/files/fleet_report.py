#!/usr/bin/env python3
"""The controller side of the mmbatch_rollout role: after each wave it builds
the fleet report from the hosts' records; before each wave (--gate) it says
whether the rollout may go on.

usage: fleet_report.py --dir REPORT_DIR [--inventory-hosts h1,h2,...]
                       [--max-fail-percentage P] [--gate]

Inputs, written by the role:
  REPORT_DIR/waves/<N>.json     {"wave": N, "hosts": [...], "started": "..."},
                                at the start of wave N
  REPORT_DIR/hosts/<host>.json  schema mmbatch-rollout-host/1 (its keys:
                                check_record()), when the host finished its
                                wave: passed, failed, skipped or would-roll

Report (the default): writes REPORT_DIR/fleet-report.json and
REPORT_DIR/fleet-report.md, each a temp file renamed into place, and prints
the .md. A host of a wave without a record is "unreachable"; a host of
--inventory-hosts in no wave is "not-reached" (wave "-" in the .md, null in
the JSON). fleet-report.json:
  {"schema": "mmbatch-fleet-report/1",
   "targets": [the records' target kernels, sorted],
   "check_mode": true when any record comes from a check-mode (dry) run,
   "totals": {"passed": N, "skipped": N, "failed": N, "would-roll": N,
              "unreachable": N, "not-reached": N},
   "hosts": [in wave order, within a wave in inventory order (else the
             wave file's): {"wave", "host", "outcome", "reason", "target",
     "check_mode", "kernel_before", "kernel_after", "default_after",
     "canary_verdict", "canary_reason", "compare_rc", "compare_verdict",
     "metrics": [{"benchmark", "metric", "unit", "better", "base_median",
                  "new_median", "change_pct", "goodness"}],
     "failed_benchmarks": [{"benchmark", "reason"}],
     "worst": null | {"benchmark", "metric", "change_pct"}
                   | {"benchmark", "failed": reason},
     "profile"}],
   "aggregate": {"wave 1": AGG, "wave 2": AGG, ..., "all": AGG}}
  AGG = {"BENCHMARK/METRIC": {"better", "median_change_pct", "hosts",
                              "hosts_from_zero"}}
The metrics are those of the benchmarks ok in both smoke documents (hosts
with only one document have none). change_pct = (new - base) / |base| * 100,
as in `mmbench compare`: 0 for 0 -> 0, null from a base of 0 ("from 0").
goodness is change_pct with the direction applied (> 0 better, < 0 worse),
null for better "none", which is listed but never judged. worst: the failed
benchmark of the new document if there is one, else the metric of the
lowest goodness. AGG: per metric, the median over the hosts of change_pct
and the number of hosts it is the median of; hosts_from_zero counts the
hosts whose change was from 0 (not in the median).

--gate: the hosts of every wave file present whose outcome is not passed,
skipped or would-roll (failed, unreachable) may be at most P percent of the
hosts of those waves (default 0). One line on stdout; writes nothing.

Exit: 0 report written or gate open, 1 gate closed, 2 bad input or the
report cannot be written (one line on stderr naming the file and the key;
nothing written).
"""
import argparse
import json
import math
import os
import re
import statistics
import sys
import tempfile

PROG = "fleet-report"
HOST_SCHEMA = "mmbatch-rollout-host/1"
REPORT_SCHEMA = "mmbatch-fleet-report/1"
BENCH_SCHEMA = "mmbench/1"
RECORD_OUTCOMES = ("passed", "failed", "skipped", "would-roll")
# A dry run's would-roll is as good as a pass: the gate lets it through.
GOOD_OUTCOMES = ("passed", "skipped", "would-roll")
ALL_OUTCOMES = ("passed", "skipped", "failed", "would-roll", "unreachable", "not-reached")


class BadInput(Exception):
    """One line naming the file (and key) that is wrong: the run stops on it,
    since a report built around a bad record would hide it."""


# ---- checking the inputs ---------------------------------------------------

KINDS = {
    "a string": lambda v: isinstance(v, str),
    "an integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    # bool is an int in Python; true is no number in JSON
    "a number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    and math.isfinite(v),
    "a boolean": lambda v: isinstance(v, bool),
    "an object": lambda v: isinstance(v, dict),
    "an array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}


def show(value):
    """A value as a message quotes it: JSON, cut short."""
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def show_choice(value):
    return value if isinstance(value, str) and value else json.dumps(value)


def check(value, where, key, kinds, allowed=None):
    """value, which must be of one of kinds (names in KINDS) and, with
    allowed, one of those; where is the file, key the path in it."""
    if not any(KINDS[kind](value) for kind in kinds):
        raise BadInput(f"{where}: {key}: must be {' or '.join(kinds)}, got {show(value)}")
    if allowed is not None and value not in allowed:
        choices = ", ".join(show_choice(a) for a in allowed)
        must = f"must be {choices}" if len(allowed) == 1 else f"must be one of {choices}"
        raise BadInput(f"{where}: {key}: {must}, got {show(value)}")
    return value


def field(obj, where, path, key, kinds, allowed=None):
    """obj[key], checked; path is where obj sits in the file ("" for the top)."""
    name = f"{path}.{key}" if path else key
    if key not in obj:
        raise BadInput(f"{where}: {name}: missing")
    return check(obj[key], where, name, kinds, allowed)


def reject_constant(name):
    raise ValueError(f"{name} is not a number")


def load_object(path):
    """The JSON object in path."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise BadInput(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not UTF-8 text") from None
    try:
        doc = json.loads(text, parse_constant=reject_constant)
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except ValueError as e:
        raise BadInput(f"{path}: invalid JSON: {e}") from None
    if not isinstance(doc, dict):
        raise BadInput(f"{path}: must be a JSON object, got {show(doc)}")
    return doc


def json_files(directory):
    """The *.json names in directory, none before the role made it. A hidden
    name is some writer's temp file, not a record yet."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise BadInput(f"{directory}: not a directory") from None
    except OSError as e:
        raise BadInput(f"{directory}: cannot read: {e.strerror}") from None
    return sorted(n for n in names if n.endswith(".json") and not n.startswith("."))


def check_bench_doc(doc, where, path):
    """An mmbench/1 document as far as the report reads it."""
    check(doc.get("schema"), where, f"{path}.schema", ("a string",), (BENCH_SCHEMA,))
    results = field(doc, where, path, "results", ("an array",))
    for i, result in enumerate(results):
        rpath = f"{path}.results[{i}]"
        check(result, where, rpath, ("an object",))
        field(result, where, rpath, "benchmark", ("a string",))
        field(result, where, rpath, "status", ("a string",), ("ok", "failed", "skipped"))
        if "reason" in result:
            field(result, where, rpath, "reason", ("a string",))
        for j, metric in enumerate(field(result, where, rpath, "metrics", ("an array",))):
            check_metric(metric, where, f"{rpath}.metrics[{j}]")


def check_metric(metric, where, path):
    check(metric, where, path, ("an object",))
    field(metric, where, path, "name", ("a string",))
    field(metric, where, path, "unit", ("a string",))
    field(metric, where, path, "better", ("a string",), ("higher", "lower", "none"))
    for k, value in enumerate(field(metric, where, path, "values", ("an array",))):
        check(value, where, f"{path}.values[{k}]", ("a number",))
    field(metric, where, path, "median", ("a number",))


def check_record(record, where):
    """A host record, mmbatch-rollout-host/1. The schema first: a foreign
    file is named as such, not by its first odd key."""
    check(record.get("schema"), where, "schema", ("a string",), (HOST_SCHEMA,))
    host = field(record, where, "", "host", ("a string",))
    if not host:
        raise BadInput(f"{where}: host: must be a host name, got \"\"")
    if field(record, where, "", "wave", ("an integer",)) < 1:
        raise BadInput(f"{where}: wave: must be 1 or more, got {record['wave']}")
    for key in ("target", "reason", "profile"):
        field(record, where, "", key, ("a string",))
    field(record, where, "", "outcome", ("a string",), RECORD_OUTCOMES)
    field(record, where, "", "check_mode", ("a boolean",))
    # null even before: a host that failed before it was read has its record
    # too, and that is the row the report must not lose
    for key in ("kernel_before", "kernel_after", "default_before", "default_after"):
        field(record, where, "", key, ("a string", "null"))
    canary = field(record, where, "", "canary", ("an object",))
    # the exit statuses are only shown: any status of the tool is kept
    field(canary, where, "canary", "status_rc", ("an integer", "null"))
    field(canary, where, "canary", "status", ("a string",))
    field(canary, where, "canary", "verdict", ("a string",), ("pass", "fail", "error", ""))
    field(canary, where, "canary", "verdict_reason", ("a string",))
    smoke = field(record, where, "", "smoke", ("an object",))
    field(smoke, where, "smoke", "baseline_kernel", ("a string", "null"))
    field(smoke, where, "smoke", "compare_rc", ("an integer", "null"))
    field(smoke, where, "smoke", "compare_verdict", ("a string", "null"))
    for key in ("baseline", "new"):
        if field(smoke, where, "smoke", key, ("an object", "null")) is not None:
            check_bench_doc(smoke[key], where, f"smoke.{key}")


# ---- reading the report directory ------------------------------------------

def read_waves(report_dir):
    """{N: [hosts]} from waves/<N>.json, in wave order. A host in two waves
    would have two rows and no single outcome: bad input."""
    directory = os.path.join(report_dir, "waves")
    waves = {}
    for name in json_files(directory):
        path = os.path.join(directory, name)
        if not re.fullmatch(r"[1-9][0-9]*\.json", name):
            raise BadInput(f"{path}: a wave file is named <wave number>.json")
        doc = load_object(path)
        number = field(doc, path, "", "wave", ("an integer",))
        if f"{number}.json" != name:
            raise BadInput(f"{path}: wave: {number}, but the file is {name}")
        hosts = field(doc, path, "", "hosts", ("an array",))
        for i, host in enumerate(hosts):
            if not check(host, path, f"hosts[{i}]", ("a string",)):
                raise BadInput(f"{path}: hosts[{i}]: must be a host name, got \"\"")
        field(doc, path, "", "started", ("a string",))
        waves[number] = (path, hosts)
    return check_each_host_once(dict(sorted(waves.items())))


def check_each_host_once(waves):
    wave_of = {}
    for number, (path, hosts) in waves.items():
        for host in hosts:
            if host in wave_of:
                where = "twice" if wave_of[host] == number else f"in waves/{wave_of[host]}.json too"
                raise BadInput(f"{path}: hosts: {host} is listed {where}")
            wave_of[host] = number
    return {number: hosts for number, (_, hosts) in waves.items()}


def read_records(report_dir, waves):
    """{host: record} from hosts/<host>.json; each must belong to the wave
    file that lists its host, or its row would have no wave."""
    directory = os.path.join(report_dir, "hosts")
    wave_of = {host: number for number, hosts in waves.items() for host in hosts}
    records = {}
    for name in json_files(directory):
        path = os.path.join(directory, name)
        record = load_object(path)
        check_record(record, path)
        host, number = record["host"], record["wave"]
        if f"{host}.json" != name:
            raise BadInput(f"{path}: host: {show(host)}, but the file is {name}")
        if host not in wave_of:
            raise BadInput(f"{path}: wave: {number}, but no wave file lists {host}")
        if wave_of[host] != number:
            raise BadInput(f"{path}: wave: {number}, but waves/{wave_of[host]}.json lists {host}")
        records[host] = record
    return records


# ---- the smoke comparison --------------------------------------------------

def change_pct(base, new):
    """The change in percent, as `mmbench compare` has it; None from 0."""
    if base == 0:
        return 0.0 if new == 0 else None
    return (new - base) / abs(base) * 100


def goodness(change, better):
    """change with the direction applied: below 0 is worse."""
    if change is None or better == "none":
        return None
    # 0.0 - change: -change of 0 would be -0.0, printed as -0
    return change if better == "higher" else 0.0 - change


def ok_metrics(doc):
    """{(benchmark, metric): metric} of the benchmarks that ran ok; the first
    of a repeated one."""
    metrics = {}
    for result in doc["results"]:
        if result["status"] == "ok":
            for metric in result["metrics"]:
                metrics.setdefault((result["benchmark"], metric["name"]), metric)
    return metrics


def compare_docs(baseline, new):
    """One entry per metric of the benchmarks ok in both, in new's order."""
    base_metrics = ok_metrics(baseline)
    compared = []
    for (bench, name), metric in ok_metrics(new).items():
        if (bench, name) not in base_metrics:
            continue
        base_median, new_median = base_metrics[(bench, name)]["median"], metric["median"]
        change = change_pct(base_median, new_median)
        compared.append({
            "benchmark": bench, "metric": name, "unit": metric["unit"],
            "better": metric["better"], "base_median": base_median, "new_median": new_median,
            "change_pct": rounded(change),
            "goodness": rounded(goodness(change, metric["better"])),
        })
    return compared


def failed_benchmarks(doc):
    return [{"benchmark": r["benchmark"], "reason": r.get("reason", "")}
            for r in doc["results"] if r["status"] == "failed"]


def worst_of(metrics, failed):
    """A benchmark that failed on the new kernel is worse than any slowdown."""
    if failed:
        return {"benchmark": failed[0]["benchmark"], "failed": failed[0]["reason"]}
    judged = [m for m in metrics if m["goodness"] is not None]
    if not judged:
        return None
    worst = min(judged, key=lambda m: m["goodness"])
    return {"benchmark": worst["benchmark"], "metric": worst["metric"],
            "change_pct": worst["change_pct"]}


def rounded(value):
    # enough digits for the JSON; the tables show one decimal
    return None if value is None else round(value, 4)


# ---- the rows --------------------------------------------------------------

def empty_row(host, wave, outcome, reason):
    return {"wave": wave, "host": host, "outcome": outcome, "reason": reason,
            "target": None, "check_mode": None, "kernel_before": None, "kernel_after": None,
            "default_after": None, "canary_verdict": None, "canary_reason": None,
            "compare_rc": None, "compare_verdict": None, "metrics": [],
            "failed_benchmarks": [], "worst": None, "profile": None}


def record_row(record):
    smoke, canary = record["smoke"], record["canary"]
    baseline, new = smoke["baseline"], smoke["new"]
    # the metrics need both documents; a failure shows in the new one alone
    metrics = compare_docs(baseline, new) if baseline and new else []
    failed = failed_benchmarks(new) if new else []
    row = empty_row(record["host"], record["wave"], record["outcome"], record["reason"])
    row.update({
        "target": record["target"], "check_mode": record["check_mode"],
        "kernel_before": record["kernel_before"], "kernel_after": record["kernel_after"],
        "default_after": record["default_after"],
        "canary_verdict": canary["verdict"], "canary_reason": canary["verdict_reason"],
        "compare_rc": smoke["compare_rc"], "compare_verdict": smoke["compare_verdict"],
        "metrics": metrics, "failed_benchmarks": failed, "worst": worst_of(metrics, failed),
        "profile": record["profile"],
    })
    return row


def build_rows(waves, records, inventory):
    position = {host: i for i, host in enumerate(inventory)}
    rows = []
    for number, hosts in waves.items():
        # sorted() is stable: hosts not in the inventory keep the wave's order
        for host in sorted(hosts, key=lambda h: position.get(h, len(position))):
            if host in records:
                rows.append(record_row(records[host]))
            else:
                rows.append(empty_row(host, number, "unreachable",
                                      f"no record: the host did not finish wave {number} "
                                      "(unreachable, or stopped)"))
    in_a_wave = {host for hosts in waves.values() for host in hosts}
    rows += [empty_row(host, None, "not-reached",
                       "in no wave: the rollout stopped before its wave (or has not reached it yet)")
             for host in inventory if host not in in_a_wave]
    return rows


def aggregate(rows):
    """Per wave and for all: per metric, the median change over the hosts."""
    groups = {}
    for row in rows:
        if row["wave"] is not None:
            groups.setdefault(f"wave {row['wave']}", []).append(row)
    groups["all"] = rows
    return {name: aggregate_group(group) for name, group in groups.items()}


def aggregate_group(rows):
    per_metric = {}
    for row in rows:
        for m in row["metrics"]:
            entry = per_metric.setdefault(f"{m['benchmark']}/{m['metric']}",
                                          {"better": m["better"], "changes": [], "from_zero": 0})
            if m["change_pct"] is None:
                entry["from_zero"] += 1
            else:
                entry["changes"].append(m["change_pct"])
    return {key: {"better": e["better"],
                  "median_change_pct": rounded(statistics.median(e["changes"])) if e["changes"] else None,
                  "hosts": len(e["changes"]), "hosts_from_zero": e["from_zero"]}
            for key, e in per_metric.items()}


def build_report(waves, records, inventory):
    rows = build_rows(waves, records, inventory)
    totals = {outcome: 0 for outcome in ALL_OUTCOMES}
    for row in rows:
        totals[row["outcome"]] += 1
    return {"schema": REPORT_SCHEMA,
            "targets": sorted({r["target"] for r in records.values()}),
            "check_mode": any(r["check_mode"] for r in records.values()),
            "totals": totals, "hosts": rows, "aggregate": aggregate(rows)}


# ---- the tables ------------------------------------------------------------

def cell(value):
    """One table cell: a multi-line text on one line, a | escaped."""
    if value is None or value == "":
        return "-"
    return " ".join(str(value).split()).replace("|", "\\|")


def format_change(pct):
    # "or 0.0": -0.04 would show as "-0.0%"
    return f"{round(pct, 1) or 0.0:+.1f}%"


def format_worst(worst, metrics):
    if worst is None:
        return None
    if "failed" in worst:
        return f"FAILED {worst['benchmark']}: {worst['failed']}"
    good = next(m["goodness"] for m in metrics
                if (m["benchmark"], m["metric"]) == (worst["benchmark"], worst["metric"]))
    # the sign alone misleads for a lower-is-better metric
    word = "worse" if good < 0 else "better" if good > 0 else "same"
    return f"{worst['benchmark']}/{worst['metric']} {format_change(worst['change_pct'])} ({word})"


def format_kernel(row):
    if row["kernel_before"] is None and row["kernel_after"] is None:
        return None
    return f"{row['kernel_before'] or '-'} → {row['kernel_after'] or '-'}"


def format_canary(row):
    if not row["canary_verdict"] and not row["canary_reason"]:
        return None
    return ": ".join(t for t in (row["canary_verdict"] or "?", row["canary_reason"]) if t)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return lines


def host_table(rows):
    header = ("wave", "host", "outcome", "reason", "kernel", "GRUB default", "canary",
              "smoke verdict", "worst metric", "profile")
    return table(header, [
        ("-" if r["wave"] is None else r["wave"], r["host"], r["outcome"], r["reason"],
         format_kernel(r), r["default_after"], format_canary(r), r["compare_verdict"],
         format_worst(r["worst"], r["metrics"]), r["profile"])
        for r in rows])


def format_aggregate(entry):
    if entry is None:
        return None
    parts = [f"n={entry['hosts']}"]
    if entry["hosts_from_zero"]:
        parts.append(f"{entry['hosts_from_zero']} from 0")
    median = entry["median_change_pct"]
    return f"{'from 0' if median is None else format_change(median)} ({', '.join(parts)})"


def aggregate_table(aggregate_by_group):
    metrics = aggregate_by_group["all"]
    if not metrics:
        return ["no host has both smoke documents"]
    groups = list(aggregate_by_group)
    return table(("metric", "better") + tuple(groups), [
        (key, metrics[key]["better"]) + tuple(format_aggregate(aggregate_by_group[g].get(key))
                                              for g in groups)
        for key in metrics])


def totals_line(report):
    t = report["totals"]
    line = (f"fleet: {t['passed']} passed, {t['skipped']} skipped, {t['failed']} failed, "
            f"{t['unreachable']} unreachable, {t['not-reached']} not reached")
    if report["check_mode"] or t["would-roll"]:
        line += f", {t['would-roll']} would roll"
    return line


def markdown(report):
    lines = ["# mmbatch fleet report", "", f"target: {', '.join(report['targets']) or '-'}"]
    if report["check_mode"]:
        lines.append("check mode: a dry run, no host was changed")
    lines += [""] + host_table(report["hosts"]) + ["", totals_line(report), "",
              "## smoke: median change per metric over the hosts (n: hosts)", ""]
    lines += aggregate_table(report["aggregate"])
    return "\n".join(lines) + "\n"


# ---- output ----------------------------------------------------------------

def write_atomically(report_dir, texts):
    """Every file goes to a temp file first, renamed into place only when all
    are written: a reader (the next wave's task, a person) never sees half a
    report, and a failed write leaves the previous one whole."""
    temps = []
    try:
        for name, text in texts.items():
            fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=report_dir)
            temps.append((temp, name))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(temp, 0o644)  # mkstemp's 0600 would hide the report from its readers
        for temp, name in temps:
            os.replace(temp, os.path.join(report_dir, name))
    except OSError as e:
        for temp, _ in temps:
            try:
                os.unlink(temp)
            except FileNotFoundError:
                pass
        raise BadInput(f"{report_dir}: cannot write the report: {e.strerror}") from None


# ---- the gate --------------------------------------------------------------

def gate(waves, records, max_fail):
    """(closed, the line to print)."""
    if not waves:
        return False, "open: no wave has started"
    hosts = [host for wave_hosts in waves.values() for host in wave_hosts]
    bad = [host for host in hosts
           if host not in records or records[host]["outcome"] not in GOOD_OUTCOMES]
    share = 100 * len(bad) / len(hosts) if hosts else 0
    closed = share > max_fail
    line = (f"{'closed' if closed else 'open'}: {len(bad)} of {len(hosts)} hosts of waves "
            f"{','.join(str(n) for n in waves)} failed or unreachable")
    if bad and max_fail > 0:
        # with a tolerance the reader needs to see how close the share came
        line += f" ({share:.3g}% {'>' if closed else '<='} {max_fail:g}%)"
    if bad:
        line += ": " + ", ".join(gate_detail(host, records.get(host)) for host in bad)
    return closed, line


def gate_detail(host, record):
    if record is None:
        return f"{host} (unreachable)"
    return f"{host} ({record['outcome']}: {cell(record['reason'])})"


# ---- the command line ------------------------------------------------------

class OneLineParser(argparse.ArgumentParser):
    """argparse's errors as the one line every other error is."""

    def error(self, message):
        raise BadInput(message)


def parse_args(argv):
    parser = OneLineParser(prog="fleet_report.py", description="the mmbatch rollout's fleet report and gate")
    parser.add_argument("--dir", required=True, help="the report directory (waves/, hosts/)")
    parser.add_argument("--inventory-hosts", default="", help="h1,h2,...: every host of the rollout")
    parser.add_argument("--max-fail-percentage", default="0", help="the gate's tolerance, 0..100")
    parser.add_argument("--gate", action="store_true", help="say whether the next wave may start")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.dir):
        raise BadInput(f"{args.dir}: {'not a directory' if os.path.exists(args.dir) else 'no such directory'}")
    args.max_fail_percentage = parse_percentage(args.max_fail_percentage)
    # "h1,,h2," from a template's join: the empty names are nothing
    args.inventory_hosts = list(dict.fromkeys(
        h.strip() for h in args.inventory_hosts.split(",") if h.strip()))
    return args


def parse_percentage(text):
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= 100:  # also NaN
        raise BadInput(f"--max-fail-percentage: must be a number 0..100, got {show(text)}")
    return value


def main(argv):
    try:
        args = parse_args(argv)
        waves = read_waves(args.dir)
        records = read_records(args.dir, waves)
        if args.gate:
            closed, line = gate(waves, records, args.max_fail_percentage)
            print(f"{PROG}: gate: {line}")
            return 1 if closed else 0
        report = build_report(waves, records, args.inventory_hosts)
        text = markdown(report)
        write_atomically(args.dir, {
            "fleet-report.json": json.dumps(report, indent=1, ensure_ascii=False) + "\n",
            "fleet-report.md": text,
        })
        sys.stdout.write(text)
        return 0
    except BadInput as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
