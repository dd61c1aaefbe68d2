"""The local apiserver's serving certificate (dev/assay_dev/cluster/certs.py) verifies wherever a client
reaches the apiserver: the host's loopback, the in-cluster names, and where a networked node's pods find it
(their KUBERNETES_SERVICE_HOST: one node's address, or the host's on the LAN of several; network.py). The
chart's operator on a networked node (`make demo`) is such a client. A real TLS handshake on loopback, the
client checking the name it was given as a pod's client checks the address it dials."""

from __future__ import annotations

import socket
import ssl
import threading

import pytest

from assay_dev.cluster.certs import Certs, write_certs
from assay_dev.cluster.network import HOST_IP, NODE_IP


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return write_certs(tmp_path_factory.mktemp("certs"))


def handshake(certs: Certs, server_name: str) -> None:
    """A TLS handshake with a server holding the apiserver's certificate, the client verifying it with the
    serving CA for `server_name` (ssl.SSLCertVerificationError when the certificate does not name it)."""
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(certs.apiserver_cert, certs.apiserver_key)
    client_context = ssl.create_default_context(cafile=str(certs.serving_ca))
    with socket.create_server(("127.0.0.1", 0)) as listener:

        def serve() -> None:
            connection, _ = listener.accept()
            try:
                with server_context.wrap_socket(connection, server_side=True):
                    pass
            except (ssl.SSLError, OSError):
                connection.close()  # the client refused the certificate

        server = threading.Thread(target=serve, daemon=True)
        server.start()
        try:
            with (
                socket.create_connection(listener.getsockname(), timeout=10) as raw,
                client_context.wrap_socket(raw, server_hostname=server_name),
            ):
                pass
        finally:
            server.join(10)


@pytest.mark.parametrize("server_name", ["127.0.0.1", "localhost", "10.0.0.1", "kubernetes.default.svc"])
def test_the_apiserver_certificate_verifies_on_loopback_and_for_the_in_cluster_names(
    certs: Certs, server_name: str
) -> None:
    handshake(certs, server_name)


@pytest.mark.parametrize("server_name", [NODE_IP, HOST_IP])
def test_the_apiserver_certificate_verifies_where_a_networked_nodes_pods_reach_it(
    certs: Certs, server_name: str
) -> None:
    handshake(certs, server_name)


def test_the_apiserver_certificate_does_not_verify_for_another_address(certs: Certs) -> None:
    with pytest.raises(ssl.SSLCertVerificationError, match="IP address mismatch"):
        handshake(certs, "10.88.0.2")
