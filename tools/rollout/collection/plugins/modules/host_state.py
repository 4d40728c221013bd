#!/usr/bin/python3
# -*- coding: utf-8 -*-
# mmbatch.fleet.host_state: what a rollout needs to know of one host, read
# in one round trip and without changing anything (so it also runs under
# --check): the running kernel, GRUB's saved default, the canary's state and
# the target's first-boot verdict, the mmbatchd profile in force, and the
# target's smoke result beside the baseline kernel's, compared by mmbench.
# GPL-2.0-only

from __future__ import annotations

DOCUMENTATION = r"""
module: host_state
short_description: Read an mmbatch host's kernel, canary verdict and smoke results
description:
  - Reads, without changing anything, the running kernel, GRUB's saved default
    kernel, C(mmbatchctl canary --status), the target kernel's first-boot
    verdict, the mmbatchd profile in force and the newest smoke results of the
    target and of a baseline kernel, with C(mmbench compare) of the two.
options:
  target:
    description: The kernel release being rolled out.
    type: str
    required: true
  baseline_kernel:
    description: The kernel whose newest smoke result is the baseline (the one the host ran before).
    type: str
  state_dir:
    description: mmbatch's state directory on the host.
    type: path
    default: /var/lib/mmbatch
author: mmbatch packagers
"""

RETURN = r"""
kernel: {description: uname -r, type: str, returned: always}
default: {description: the kernel GRUB's saved_entry boots, or null, type: str, returned: always}
canary: {description: 'status_rc (0 passed, 1 failed, 3 armed, null: no mmbatchctl), status (its text), kernel and state of the last canary', type: dict, returned: always}
verdict: {description: result, reason and at of verdict/TARGET, or empty strings, type: dict, returned: always}
profile: {description: the profile mmbatchd runs (mmbatchctl status --json), or a reason it is unknown, type: str, returned: always}
smoke: {description: baseline_kernel, baseline and new (mmbench/1 documents or null), their files, compare_rc, compare_verdict, compare_table, type: dict, returned: always}
"""

import json
import os
import platform
import re
import shutil

from ansible.module_utils.basic import AnsibleModule

# saved_entry=gnulinux-advanced-UUID>gnulinux-KVER-advanced-UUID (Debian's
# grub-mkconfig ids, what mmbatchctl canary sets): the kernel is in the last
# part, the entry inside the submenu.
SAVED_ENTRY_KVER = re.compile(r"^gnulinux-(.+?)-advanced-")
CANARY_LINE = re.compile(r"^canary:\s+(\S+) \((\w+)\)", re.M)


def run(module, argv):
    """(rc, stdout, stderr) of argv, or (None, '', why) when it is not installed.
    mmbatchctl and the smoke tools read the state directory from the environment."""
    if shutil.which(argv[0]) is None:
        return None, "", "%s not found" % argv[0]
    return module.run_command(argv, environ_update={"MMBATCH_STATE_DIR": module.params["state_dir"]})


def grub_default(module):
    """The kernel release of GRUB's saved entry, or None (no GRUB env, no saved entry)."""
    for tool in ("grub-editenv", "grub2-editenv"):
        rc, out, _ = run(module, [tool, "list"])
        if rc != 0:
            continue
        for line in out.splitlines():
            if line.startswith("saved_entry="):
                m = SAVED_ENTRY_KVER.search(line.rpartition(">")[2].replace("saved_entry=", "", 1))
                return m.group(1) if m else line[len("saved_entry="):]
        return None
    return None


def canary_state(module):
    rc, out, err = run(module, ["mmbatchctl", "canary", "--status"])
    m = CANARY_LINE.search(out or "")
    return {
        "status_rc": rc,
        "status": (out + err).strip(),
        "kernel": m.group(1) if m else None,
        "state": m.group(2) if m else None,
    }


def read_verdict(state_dir, target):
    verdict = {"result": "", "reason": "", "at": ""}
    try:
        with open(os.path.join(state_dir, "verdict", target), encoding="utf-8") as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition("=")
                if key in verdict:
                    verdict[key] = value
    except FileNotFoundError:
        pass
    return verdict


def profile_in_force(module):
    rc, out, err = run(module, ["mmbatchctl", "status", "--json"])
    if rc != 0:
        return "unknown: mmbatchctl status --json: %s" % (err.strip() or "exit %s" % rc)
    try:
        status = json.loads(out)
    except ValueError:
        return "unknown: mmbatchctl status --json printed no JSON"
    return status.get("profile") or "unknown: mmbatchd reports no profile (state %s)" % status.get("state")


def newest_result(state_dir, kver):
    """The lexically last results/KVER/<stamp>.json (stamps sort by time); dot files are temp files."""
    if not kver:
        return None
    d = os.path.join(state_dir, "results", kver)
    try:
        names = sorted(n for n in os.listdir(d) if n.endswith(".json") and not n.startswith("."))
    except FileNotFoundError:
        return None
    return os.path.join(d, names[-1]) if names else None


def load_json(path):
    if path is None:
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def smoke_comparison(module, state_dir, target, baseline_kernel):
    new_file = newest_result(state_dir, target)
    base_file = newest_result(state_dir, baseline_kernel)
    smoke = {
        "baseline_kernel": baseline_kernel or None,
        "baseline_file": base_file, "new_file": new_file,
        "baseline": None, "new": None,
        "compare_rc": None, "compare_verdict": None, "compare_table": None,
    }
    for key, path in (("baseline", base_file), ("new", new_file)):
        try:
            smoke[key] = load_json(path)
        except (OSError, ValueError) as e:
            module.fail_json(msg="host_state: %s: not a smoke result: %s" % (path, e))
    if base_file and new_file:
        rc, out, err = run(module, ["mmbench", "compare", base_file, new_file])
        smoke["compare_rc"] = rc
        smoke["compare_table"] = out
        verdicts = [line for line in out.splitlines() if line.startswith("verdict:")]
        smoke["compare_verdict"] = verdicts[-1] if verdicts else (err.strip() or None)
    return smoke


def main():
    module = AnsibleModule(
        argument_spec={
            "target": {"type": "str", "required": True},
            "baseline_kernel": {"type": "str"},
            "state_dir": {"type": "path", "default": "/var/lib/mmbatch"},
        },
        supports_check_mode=True,
    )
    target = module.params["target"]
    state_dir = module.params["state_dir"]
    module.exit_json(
        changed=False,
        kernel=platform.release(),
        default=grub_default(module),
        canary=canary_state(module),
        verdict=read_verdict(state_dir, target),
        profile=profile_in_force(module),
        smoke=smoke_comparison(module, state_dir, target, module.params["baseline_kernel"]),
    )


if __name__ == "__main__":
    main()
