"""Token usage and cost, summed per evaluation from the gateway's `usage` fields and a price table."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

from assay_runner.contract import PriceConfig, Usage
from assay_runner.gateway.chat import ChatClient, ChatMessage, ChatReply


@dataclass
class UsageMeter:
    prices: Mapping[str, PriceConfig] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    prompt_chars: list[int] = field(default_factory=list)
    """Characters sent per call: lets a reviewer check judges never receive transcripts."""

    def add(self, model: str, reply: ChatReply, prompt_chars: int) -> None:
        self.calls += 1
        self.input_tokens += reply.input_tokens
        self.output_tokens += reply.output_tokens
        self.prompt_chars.append(prompt_chars)
        price = self.prices.get(model)
        if price is not None:
            self.cost_usd += price.cost_usd(reply.input_tokens, reply.output_tokens)

    def usage(self) -> Usage:
        return Usage(
            input_tokens=self.input_tokens, output_tokens=self.output_tokens, cost_usd=round(self.cost_usd, 6)
        )


class MeteredClient:
    """Wraps a client and counts every reply it returns."""

    def __init__(self, inner: ChatClient, meter: UsageMeter) -> None:
        self.inner = inner
        self.meter = meter
        self._lock = asyncio.Lock()

    async def complete(
        self, *, model: str, messages: list[ChatMessage], temperature: float, sample: int = 0
    ) -> ChatReply:
        reply = await self.inner.complete(
            model=model, messages=messages, temperature=temperature, sample=sample
        )
        async with self._lock:
            self.meter.add(model, reply, sum(len(m.content) for m in messages))
        return reply
