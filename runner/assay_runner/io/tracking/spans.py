"""MLflow spans built from data rather than by a live tracer.

MLflow's tracer exports each span to the store as it ends and each trace as one more write: thousands of
round trips for a large evaluation (bench/mlflow_share.py). A finished evaluation knows every span's
times and contents already, so a trace is built here in memory, in the form MLflow itself stores and
reads spans in (`Span.from_dict`: OpenTelemetry ids, base64-encoded, and JSON-encoded attributes), and
written with other traces in one batch (`writer.py`).
"""

from __future__ import annotations

import base64
import json
import secrets
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mlflow.entities import Span

# The attributes MLflow reads a span's meaning from (mlflow.tracing.constant.SpanAttributeKey).
TRACE_ID_KEY = "mlflow.traceRequestId"
SPAN_TYPE_KEY = "mlflow.spanType"
INPUTS_KEY = "mlflow.spanInputs"
OUTPUTS_KEY = "mlflow.spanOutputs"


def _nonzero_bits(bits: int) -> int:
    return secrets.randbits(bits) or 1  # OpenTelemetry reserves 0 as "no id"


def _b64(value: int, size: int) -> str:
    return base64.b64encode(value.to_bytes(size, "big")).decode("ascii")


def _json(value: Any) -> str:
    # As MLflow encodes attributes: JSON text, non-ASCII kept (MLflow searches span content as text).
    return json.dumps(value, ensure_ascii=False, default=str)


def ns(seconds: float) -> int:
    return int(seconds * 1e9)


class TraceSpans:
    """One trace's spans, added parent first; ids are random, as a tracer's are."""

    def __init__(self) -> None:
        self._otel_id = _nonzero_bits(128)
        self.trace_id = f"tr-{self._otel_id:032x}"
        self.spans: list[Span] = []
        self.size = 0
        """Bytes of the spans' attributes: what a batch of traces is capped by."""

    def add(
        self,
        name: str,
        span_type: str,
        *,
        parent: str | None,
        start: float,
        end: float,
        inputs: Any,
        outputs: Any,
        ok: bool = True,
        attributes: dict[str, Any] | None = None,
    ) -> str:
        """Add a finished span; returns its id (16 hex digits, as MLflow names span ids)."""
        from mlflow.entities import Span

        span_id = _nonzero_bits(64)
        encoded = {
            TRACE_ID_KEY: _json(self.trace_id),
            SPAN_TYPE_KEY: _json(span_type),
            INPUTS_KEY: _json(inputs),
            OUTPUTS_KEY: _json(outputs),
            **{key: _json(value) for key, value in (attributes or {}).items()},
        }
        self.size += sum(len(value) for value in encoded.values())
        self.spans.append(
            Span.from_dict(
                {
                    "trace_id": _b64(self._otel_id, 16),
                    "span_id": _b64(span_id, 8),
                    "parent_span_id": _b64(int(parent, 16), 8) if parent else None,
                    "name": name,
                    "start_time_unix_nano": ns(start),
                    "end_time_unix_nano": ns(max(start, end)),
                    "events": [],
                    "status": {"code": "STATUS_CODE_OK" if ok else "STATUS_CODE_ERROR", "message": ""},
                    "attributes": encoded,
                }
            )
        )
        return f"{span_id:016x}"
