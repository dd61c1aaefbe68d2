"""Gateway failures. They surface as judge errors or agent failures — never as a score."""

from __future__ import annotations

from assay_runner.errors import AssayError


class GatewayError(AssayError):
    """The gateway did not give a usable reply after the retries allowed."""


class CassetteMiss(GatewayError):
    """Replay mode found no recording for a request."""
