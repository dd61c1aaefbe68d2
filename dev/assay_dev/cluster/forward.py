"""A host service reachable inside a network namespace: a port of an address there (a node's, the
"outside" one) spliced to a port on the host's loopback, each connection by a thread (network.py).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path

from .netns import entered


class Forward:
    """One port of an address in the node namespace, spliced to a port on the host's loopback."""

    def __init__(self, listener: socket.socket, target: tuple[str, int]) -> None:
        self.listener = listener
        self.target = target
        self.address: tuple[str, int] = listener.getsockname()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept, name=f"forward-{self.address}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._splice, args=(client,), daemon=True).start()

    def _splice(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self.target, timeout=10)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)
        # Each chunk goes on at once, as the two ends wrote it: with Nagle's algorithm a request's body (or a
        # reply's, after its headers) waited for the peer's delayed ACK, about 40 ms a request each way.
        for end in (client, upstream):
            end.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def pump(source: socket.socket, sink: socket.socket) -> None:
            try:
                while data := source.recv(65536):
                    sink.sendall(data)
            except OSError:
                pass
            finally:
                with contextlib.suppress(OSError):
                    sink.shutdown(socket.SHUT_WR)

        back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
        back.start()
        pump(client, upstream)
        back.join()
        client.close()
        upstream.close()


def expose_in(netns: Path, port: int, target_port: int, address: str) -> Forward:
    """Host port `target_port` (on 127.0.0.1) reachable at `address`:`port` in `netns`."""
    with entered(netns):
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((address, port))
    listener.listen(64)
    return Forward(listener, ("127.0.0.1", target_port))
