"""One Campaign as one read of it shows it, typed once and handed to every step of a reconcile: its identity
(namespace, name, uid), generation, annotations, the typed status (and the stored one, to skip a write that
changes nothing), its status write and its Events. The raw body is kept only for owner references."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import kopf

from assay_operator import events, kube, status_writer
from assay_operator.campaign import api as campaign_api
from assay_operator.campaign import status as campaign_status


@dataclass(frozen=True)
class WatchedCampaign:
    namespace: str
    name: str
    uid: str
    generation: int
    annotations: Mapping[str, str]
    status: campaign_api.CampaignStatus
    stored: Mapping[str, Any]
    """The status as stored (camelCase JSON), to compare a patch with."""
    body: Mapping[str, Any]
    """The raw object the apiserver handed over: for owner references and Events only."""

    @classmethod
    def of(cls, body: Mapping[str, Any]) -> WatchedCampaign:
        meta = body["metadata"]
        stored = dict(body.get("status") or {})
        return cls(
            namespace=str(meta["namespace"]),
            name=str(meta["name"]),
            uid=str(meta.get("uid") or ""),
            generation=int(meta["generation"]),
            annotations=dict(meta.get("annotations") or {}),
            status=campaign_status.parse_status(stored),
            stored=stored,
            body=body,
        )

    @classmethod
    def read(cls, namespace: str, name: str) -> WatchedCampaign | None:
        """The Campaign as it is now; None when it is gone."""
        body = kube.get_custom(campaign_api.PLURAL, namespace, name)
        return None if body is None else cls.of(body)

    def raw_spec(self) -> Mapping[str, Any]:
        return cast(Mapping[str, Any], self.body.get("spec") or {})

    def write(
        self, status: campaign_api.CampaignStatus
    ) -> status_writer.Written[campaign_api.CampaignStatus] | None:
        """Write `status` over the one read; a refused one becomes Stalled with the reason and a Warning."""
        return status_writer.write(
            campaign_api.PLURAL,
            self.namespace,
            self.name,
            lambda: status,
            lambda problem: campaign_status.refused_status(self.status, self.generation, problem),
            lambda message: events.warning(self.body, status_writer.REASON, message),
        )

    def event(self, kind: str, reason: str, message: str) -> None:
        body = self.body
        ref = {"apiVersion": body["apiVersion"], "kind": body["kind"], "metadata": body["metadata"]}
        kopf.event(cast(kopf.Body, ref), type=kind, reason=reason, message=message)
