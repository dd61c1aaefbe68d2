"""The local kubelet's mirror list (assay_dev.cluster.mirrors): ImageDigestMirrorSet objects read as
OpenShift's nodes read them, references resolved to the candidates a pull tries, and the pull's report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay_dev.cluster.mirrors import (
    DigestMirror,
    MirrorPullError,
    MirrorSetError,
    load_mirror_sets,
    parse_mirror_sets,
    pull_candidates,
    pull_with_mirrors,
)

D = "sha256:" + "ab" * 32


def idms(*entries: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "config.openshift.io/v1",
        "kind": "ImageDigestMirrorSet",
        "metadata": {"name": "assay"},
        "spec": {"imageDigestMirrors": list(entries)},
    }


SETS = parse_mirror_sets(
    [
        idms(
            {"source": "registry.example", "mirrors": ["mirror.internal:5000"]},
            {
                "source": "registry.example/assay",
                "mirrors": ["mirror.internal:5000/team-a", "backup.internal/assay"],
                "mirrorSourcePolicy": "NeverContactSource",
            },
            {"source": "quay.io/org/runner", "mirrors": ["127.0.0.1:5001/org/runner"]},
        )
    ],
    "test",
)


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        # The most specific source decides; the rest of the path is kept under each mirror; NeverContact...
        (
            f"registry.example/assay/runner@{D}",
            (f"mirror.internal:5000/team-a/runner@{D}", f"backup.internal/assay/runner@{D}"),
        ),
        # A registry-wide source; the source is tried last (AllowContactingSource by default).
        (
            f"registry.example/other/tool@{D}",
            (f"mirror.internal:5000/other/tool@{D}", f"registry.example/other/tool@{D}"),
        ),
        # A repository source matches itself exactly ...
        (f"quay.io/org/runner@{D}", (f"127.0.0.1:5001/org/runner@{D}", f"quay.io/org/runner@{D}")),
        # ... but not a longer name that merely begins with it (a path-component boundary).
        (f"quay.io/org/runner-agents@{D}", (f"quay.io/org/runner-agents@{D}",)),
        # A tag alongside a digest: the digest decides, the tag is dropped at the mirror.
        (
            f"registry.example/assay/runner:v1@{D}",
            (f"mirror.internal:5000/team-a/runner@{D}", f"backup.internal/assay/runner@{D}"),
        ),
        # Tags are never redirected (OpenShift's digest mirrors are for digests only).
        ("registry.example/assay/runner:v1", ("registry.example/assay/runner:v1",)),
        # A registry no set names.
        (f"elsewhere.io/assay/runner@{D}", (f"elsewhere.io/assay/runner@{D}",)),
    ],
)
def test_candidates(reference: str, expected: tuple[str, ...]) -> None:
    assert pull_candidates(reference, SETS) == expected


def test_sets_with_one_source_merge_their_mirrors_and_never_contact_source_wins() -> None:
    merged = parse_mirror_sets(
        [
            idms({"source": "r.example/a", "mirrors": ["m1.internal/a"]}),
            idms(
                {"source": "r.example/a", "mirrors": ["m2.internal/a", "m1.internal/a"]},
                {"source": "r.example/b", "mirrors": ["m1.internal/b"]},
            ),
            idms(
                {
                    "source": "r.example/a",
                    "mirrors": ["m3.internal/a"],
                    "mirrorSourcePolicy": "NeverContactSource",
                }
            ),
        ],
        "test",
    )
    assert merged == (
        DigestMirror("r.example/a", ("m1.internal/a", "m2.internal/a", "m3.internal/a"), True),
        DigestMirror("r.example/b", ("m1.internal/b",), False),
    )


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ({**idms(), "kind": "ImageContentSourcePolicy"}, "not config.openshift.io/v1/ImageDigestMirrorSet"),
        (idms({"mirrors": ["m.internal"]}), "imageDigestMirrors[0]: source is missing"),
        (idms({"source": "r.example", "mirrors": "m.internal"}), "mirrors is not a list"),
        (
            idms({"source": "r.example/a:v1", "mirrors": ["m.internal"]}),
            "is not a registry or repository name",
        ),
        (idms({"source": "r.example", "mirrors": [f"m.internal/a@{D}"]}), "is not a registry or repository"),
        (idms({"source": "*.example.com", "mirrors": ["m.internal"]}), "wildcard sources are not supported"),
        (
            idms({"source": "r.example", "mirrors": ["m"], "mirrorSourcePolicy": "Never"}),
            "is not AllowContact",
        ),
        (idms({"source": "r.example", "mirrorSourcePolicy": "NeverContactSource"}), "leaves nothing to pull"),
        ("text", "object 1: not a mapping"),
    ],
)
def test_malformed_sets_are_refused_naming_the_entry(document: Any, problem: str) -> None:
    with pytest.raises(MirrorSetError, match=r"^where: object 1") as refused:
        parse_mirror_sets([document], "where")
    assert problem in str(refused.value)


def test_the_file_holds_several_documents_or_a_list_and_a_missing_file_is_no_mirrors(tmp_path: Path) -> None:
    path = tmp_path / "mirrors.yaml"
    assert load_mirror_sets(path) == ()
    path.write_text(
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: config.openshift.io/v1\n  kind: ImageDigestMirrorSet\n"
        "  spec: {imageDigestMirrors: [{source: r.example/a, mirrors: [m.internal/a]}]}\n"
        "---\n"
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\n"
        "spec: {imageDigestMirrors: [{source: r.example/b, mirrors: [m.internal/b]}]}\n"
    )
    assert [m.source for m in load_mirror_sets(path)] == ["r.example/a", "r.example/b"]
    path.write_text("spec: [unclosed\n")
    with pytest.raises(MirrorSetError, match="not YAML"):
        load_mirror_sets(path)


def test_a_pull_tries_each_candidate_in_order_and_reports_every_failure() -> None:
    tried: list[str] = []

    def pull(reference: str) -> str:
        tried.append(reference)
        if reference.startswith("backup.internal/"):
            return "pulled"
        raise ConnectionError("connection refused")

    reference = f"registry.example/assay/runner@{D}"
    assert pull_with_mirrors(reference, SETS, pull) == (f"backup.internal/assay/runner@{D}", "pulled")
    assert tried == [f"mirror.internal:5000/team-a/runner@{D}", f"backup.internal/assay/runner@{D}"]

    def refuse(reference: str) -> str:
        raise ConnectionError(f"{reference.partition('/')[0]} refused")

    with pytest.raises(MirrorPullError) as failed:
        pull_with_mirrors(reference, SETS, refuse)
    assert str(failed.value) == (
        f"{reference}: no mirror could serve it (the mirror list says NeverContactSource): "
        f"mirror.internal:5000/team-a/runner@{D}: mirror.internal:5000 refused; "
        f"backup.internal/assay/runner@{D}: backup.internal refused"
    )
    with pytest.raises(MirrorPullError, match=f"^elsewhere.io/x@{D}: elsewhere.io refused$"):
        pull_with_mirrors(f"elsewhere.io/x@{D}", SETS, refuse)
