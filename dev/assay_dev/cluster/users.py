"""Users of the local control plane other than the admin: a client certificate signed by the apiserver's
client CA authenticates as its CN, in the groups named by its O attributes — as a person logging in through
the cluster's identity provider would, with no RBAC of their own until a binding grants some."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from .certs import Certs
from .kubeconfig import write_kubeconfig


def user_kubeconfig(certs: Certs, server: str, user: str, groups: Sequence[str], directory: Path) -> Path:
    """A kubeconfig authenticating as `user` in `groups` (a fresh client certificate)."""
    ca = x509.load_pem_x509_certificate(certs.client_ca.read_bytes())
    ca_key = serialization.load_pem_private_key(certs.client_ca_key.read_bytes(), password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, user),
            *(x509.NameAttribute(NameOID.ORGANIZATION_NAME, group) for group in groups),
        ]
    )
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    directory.mkdir(parents=True, exist_ok=True)
    cert_file = directory / f"{user}.crt"
    key_file = directory / f"{user}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    key_file.chmod(0o600)
    return write_kubeconfig(
        directory / f"{user}.kubeconfig",
        server=server,
        ca=certs.serving_ca,
        user=user,
        client_cert=cert_file,
        client_key=key_file,
    )
