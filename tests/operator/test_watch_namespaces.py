"""Which namespaces the operator watches: a list, every namespace (`*`), or what OLM's OperatorGroup says
(OLM_TARGET_NAMESPACES, empty meaning every namespace); and the kopf command line each gives."""

from __future__ import annotations

import pytest

from assay_operator.__main__ import kopf_args
from assay_operator.settings import SettingsError, from_environment

BASE = {"ASSAY_RUNNER_IMAGE": "runner:1"}


@pytest.mark.parametrize(
    ("env", "namespaces", "everywhere", "flags"),
    [
        ({}, (), False, ["--namespace=home"]),
        (
            {"ASSAY_NAMESPACES": "team-a, team-b"},
            ("team-a", "team-b"),
            False,
            ["--namespace=team-a", "--namespace=team-b"],
        ),
        ({"ASSAY_NAMESPACES": "*"}, (), True, ["--all-namespaces"]),
        ({"OLM_TARGET_NAMESPACES": ""}, (), True, ["--all-namespaces"]),
        ({"OLM_TARGET_NAMESPACES": "team-a"}, ("team-a",), False, ["--namespace=team-a"]),
        (
            {"OLM_TARGET_NAMESPACES": "team-a,team-b"},
            ("team-a", "team-b"),
            False,
            ["--namespace=team-a", "--namespace=team-b"],
        ),
    ],
)
def test_watched_namespaces(
    env: dict[str, str],
    namespaces: tuple[str, ...],
    everywhere: bool,
    flags: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("POD_NAMESPACE", "home")
    settings = from_environment({**BASE, **env})
    assert (settings.namespaces, settings.all_namespaces) == (namespaces, everywhere)
    args = kopf_args(settings)
    assert [a for a in args if a.startswith(("--namespace", "--all-namespaces"))] == flags


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ASSAY_NAMESPACES": "*,team-a"}, "ASSAY_NAMESPACES: \\* \\(every namespace\\) stands alone"),
        ({"ASSAY_NAMESPACES": "Team_A"}, "ASSAY_NAMESPACES.*'Team_A' is not a namespace name"),
        ({"ASSAY_NAMESPACES": "a", "OLM_TARGET_NAMESPACES": "b"}, "both set"),
        ({"ASSAY_STALL_AFTER_RETRIES": "-1"}, "ASSAY_STALL_AFTER_RETRIES"),
    ],
)
def test_bad_namespace_settings_name_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        from_environment({**BASE, **env})
