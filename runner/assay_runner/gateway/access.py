"""Assembling the model client a run uses: gateway, cassettes and the usage meter, from settings."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.contract import PriceConfig, RunConfig, checked_gateway_url
from assay_runner.gateway.cassette import CassetteClient
from assay_runner.gateway.chat import ChatClient
from assay_runner.gateway.usage import MeteredClient, UsageMeter
from assay_runner.vocabulary import CassetteMode

if TYPE_CHECKING:
    from assay_runner.gateway.http import GatewayClient, TokenRole
    from assay_runner.gateway.sidecar_link import SidecarLink


@dataclass
class ModelAccess:
    client: ChatClient | None
    meter: UsageMeter
    _gateway: GatewayClient | None = field(default=None, repr=False)

    async def aclose(self) -> None:
        if self._gateway is not None:
            await self._gateway.aclose()


def model_access(
    gateway: str | None,
    cassettes: Path | None = None,
    mode: CassetteMode | None = None,
    prices: Mapping[str, PriceConfig] | None = None,
    role: TokenRole = "agent",
    sidecar: SidecarLink | None = None,
) -> ModelAccess:
    """No gateway and no cassettes gives no client: model judges then error, and the verdict blocks.
    `role`: whose token authenticates the calls (the judge phase may have a token of its own); `sidecar`:
    the calls go through the gateway sidecar instead, with no token (the answer phase on the cluster)."""
    meter = UsageMeter(prices=prices or {})
    given = gateway or os.environ.get("ASSAY_GATEWAY_URL") or None
    source = "--gateway" if gateway else "$ASSAY_GATEWAY_URL"
    gateway = checked_gateway_url(given, source) if given else None
    http = None
    if gateway:
        # httpx costs most of a second to import: only runs that call a model pay for it.
        from assay_runner.gateway.http import GatewayClient, gateway_token

        if sidecar is not None:
            http = GatewayClient(gateway, transport=sidecar.transport())
        else:
            http = GatewayClient(gateway, token=gateway_token(role))
    client: ChatClient | None = http
    if cassettes is not None:
        client = CassetteClient(cassettes, mode or "replay", http)
    elif mode not in (None, "off"):
        from assay_runner.errors import InputError

        raise InputError(f"--cassette-mode {mode} needs --cassettes DIR")
    if client is None:
        return ModelAccess(None, meter)
    return ModelAccess(MeteredClient(client, meter), meter, http)


def run_model_access(
    config: RunConfig,
    prices: Mapping[str, PriceConfig] | None,
    role: TokenRole = "agent",
    sidecar: SidecarLink | None = None,
) -> ModelAccess:
    """The model client of a run from its RunConfig: its gateway, its cassettes (directory and mode) and the
    suite's prices. The one recipe of every phase that calls a model (`assay run`, the answer phase, the
    judge phase); `role` and `sidecar` as for `model_access`."""
    cassettes = config.cassettes
    return model_access(
        config.gateway,
        Path(cassettes.dir) if cassettes else None,
        cassettes.mode if cassettes else None,
        prices,
        role=role,
        sidecar=sidecar,
    )
