"""The operator's reading of a digest mirror list (it verifies the image where the nodes will pull it) and
the local node's (a stand-in for CRI-O, written apart from the operator on purpose so that the disconnected
tests compare two readings) resolve every reference to the same candidates, in the same order."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from assay_dev.cluster.mirrors import parse_mirror_sets, pull_candidates
from assay_operator import image_mirrors

DIGEST = "sha256:" + "cd" * 32
SOURCES = ["registry.example", "registry.example/assay", "registry.example/assay/runner", "quay.io/org"]
MIRRORS = ["mirror.internal:5000", "mirror.internal:5000/team-a", "backup.internal/assay", "m3.internal"]
NAMES = [
    "registry.example/assay/runner",
    "registry.example/assay/runner-agents",
    "registry.example/other/tool",
    "quay.io/org/x",
    "quay.io/orgx/y",
    "elsewhere.io/a",
]

entries = st.lists(
    st.fixed_dictionaries(
        {
            "source": st.sampled_from(SOURCES),
            "mirrors": st.lists(st.sampled_from(MIRRORS), min_size=1, max_size=3),
            "mirrorSourcePolicy": st.sampled_from(["AllowContactingSource", "NeverContactSource"]),
        }
    ),
    max_size=5,
)
references = st.builds(
    lambda name, tag, by_digest: name + (tag or "") + (f"@{DIGEST}" if by_digest or not tag else ""),
    st.sampled_from(NAMES),
    st.sampled_from([None, ":v1", ":latest"]),
    st.booleans(),
)


@given(entries, references)
def test_the_operator_and_the_node_resolve_alike(listed: list[dict[str, Any]], reference: str) -> None:
    document = {
        "apiVersion": "config.openshift.io/v1",
        "kind": "ImageDigestMirrorSet",
        "metadata": {"name": "assay"},
        "spec": {"imageDigestMirrors": listed},
    }
    by_operator = image_mirrors.candidates(reference, image_mirrors.parse(json.dumps(document)))
    by_node = pull_candidates(reference, parse_mirror_sets([document], "test"))
    assert by_operator == list(by_node)
