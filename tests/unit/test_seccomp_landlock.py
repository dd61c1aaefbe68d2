"""The local kubelet's RuntimeDefault seccomp profile (containers/common's, as CRI-O and so OpenShift apply
it: dev/assay_dev/cluster/seccomp.py) lets a restricted container use Landlock: each cell's sandbox
(assay_runner.sandbox) needs its three system calls, and a container with no capability gets them."""

from __future__ import annotations

import pytest

from assay_dev.cluster.seccomp import PROFILE, SeccompError, runtime_default

LANDLOCK = {"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"}


def test_a_restricted_container_may_use_landlock() -> None:
    try:
        profile = runtime_default(capabilities=[])  # restricted: drop ALL, as the answer pod runs
    except SeccompError:
        pytest.skip(f"no default seccomp profile at {PROFILE} on this machine")
    allowed = {
        name
        for rule in profile["syscalls"]
        if rule["action"] == "SCMP_ACT_ALLOW" and not rule.get("args")
        for name in rule["names"]
    }
    assert allowed >= LANDLOCK, sorted(LANDLOCK - allowed)
    assert profile["defaultAction"] != "SCMP_ACT_ALLOW"  # refused unless listed: the listing is what counts


def test_a_node_like_containerd_1_6_refuses_landlock_and_nothing_else_changes() -> None:
    """`landlock=False`: the profile a test node takes on to show the layers behind the sandbox (the
    kernel's default action then refuses the three calls, as containerd 1.6's RuntimeDefault did)."""
    try:
        with_landlock = runtime_default(capabilities=[])
        without = runtime_default(capabilities=[], landlock=False)
    except SeccompError:
        pytest.skip(f"no default seccomp profile at {PROFILE} on this machine")
    named = {name for rule in without["syscalls"] for name in rule["names"]}
    assert not named & LANDLOCK
    every = {name for rule in with_landlock["syscalls"] for name in rule["names"]}
    assert every - named == LANDLOCK
    assert without["defaultAction"] == with_landlock["defaultAction"] != "SCMP_ACT_ALLOW"
