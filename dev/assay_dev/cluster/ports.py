"""Free loopback ports for the control plane's listeners."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago.

    The port is released before the caller binds it, so a race with another process is possible; the
    control plane retries a start whose port got taken.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
