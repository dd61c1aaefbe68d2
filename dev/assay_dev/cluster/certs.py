"""Certificates and keys for a throwaway control plane.

Three CAs, like a real cluster: one signs the apiserver's serving certificate (clients verify the server
with it), one signs client certificates (the apiserver's --client-ca-file), and etcd's own signs etcd's
serving/peer certificate and the apiserver's etcd client certificate: etcd answers only the apiserver (the
pods of the local kubelet share the host's network, and an etcd open on loopback would hand them every
Secret and ConfigMap). The admin client is in `system:masters`, which RBAC lets do anything. The
service-account keypair signs and verifies tokens.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from .network import HOST_IP, NODE_IP

_VALIDITY = datetime.timedelta(days=2)

_PrivateKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey


@dataclass(frozen=True)
class Certs:
    """Paths of the PEM files the control plane and its clients use."""

    dir: Path
    serving_ca: Path
    apiserver_cert: Path
    apiserver_key: Path
    client_ca: Path
    client_ca_key: Path
    """Signs users' client certificates (users.py): a user's name is its CN, its groups its O attributes."""
    admin_cert: Path
    admin_key: Path
    sa_private_key: Path
    sa_public_key: Path
    etcd_ca: Path
    etcd_cert: Path
    """etcd's serving and peer certificate (127.0.0.1)."""
    etcd_key: Path
    etcd_client_cert: Path
    """The apiserver's client certificate for etcd."""
    etcd_client_key: Path


def _name(common_name: str, organization: str | None = None) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    return x509.Name(attrs)


def _new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _builder(subject: x509.Name, issuer: x509.Name, key: _PrivateKey) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))  # tolerate small clock skew
        .not_valid_after(now + _VALIDITY)
    )


def _ca(common_name: str) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = _new_key()
    name = _name(common_name)
    cert = (
        _builder(name, name, key)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    return cert, key


def _leaf(
    ca: tuple[x509.Certificate, ec.EllipticCurvePrivateKey],
    subject: x509.Name,
    usage: x509.ObjectIdentifier | list[x509.ObjectIdentifier],
    sans: list[x509.GeneralName] | None = None,
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    ca_cert, ca_key = ca
    key = _new_key()
    builder = (
        _builder(subject, ca_cert.subject, key)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage(usage if isinstance(usage, list) else [usage]), critical=False)
    )
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(ca_key, hashes.SHA256()), key


def _write_cert(path: Path, cert: x509.Certificate) -> Path:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path


def _write_key(path: Path, key: _PrivateKey) -> Path:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    path.chmod(0o600)
    return path


def write_certs(directory: Path) -> Certs:
    """Create every certificate and key under `directory`.

    The serving pair is named apiserver.crt/apiserver.key, the names kube-apiserver looks for in --cert-dir.
    """
    directory.mkdir(parents=True, exist_ok=True)
    serving_ca = _ca("assay-test-serving-ca")
    client_ca = _ca("assay-test-client-ca")

    serving_sans: list[x509.GeneralName] = [
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        # The in-cluster names, so a client that builds the URL from the kubernetes Service still verifies.
        x509.DNSName("kubernetes.default.svc"),
        x509.IPAddress(ipaddress.ip_address("10.0.0.1")),
        # Where a networked node's pods reach it (KUBERNETES_SERVICE_HOST there, network.py): one node's
        # address, and the host's on the LAN of several; an in-cluster client (the chart's operator) verifies.
        x509.IPAddress(ipaddress.ip_address(NODE_IP)),
        x509.IPAddress(ipaddress.ip_address(HOST_IP)),
    ]
    apiserver = _leaf(serving_ca, _name("kube-apiserver"), ExtendedKeyUsageOID.SERVER_AUTH, serving_sans)
    admin = _leaf(client_ca, _name("admin", "system:masters"), ExtendedKeyUsageOID.CLIENT_AUTH)
    sa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    etcd_ca = _ca("assay-test-etcd-ca")
    loopback: list[x509.GeneralName] = [
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
    ]
    both = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]  # serving, and peer
    etcd = _leaf(etcd_ca, _name("etcd"), both, loopback)
    etcd_client = _leaf(etcd_ca, _name("kube-apiserver-etcd-client"), ExtendedKeyUsageOID.CLIENT_AUTH)

    sa_public = directory / "sa.pub"
    sa_public.write_bytes(
        sa_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return Certs(
        dir=directory,
        serving_ca=_write_cert(directory / "serving-ca.crt", serving_ca[0]),
        apiserver_cert=_write_cert(directory / "apiserver.crt", apiserver[0]),
        apiserver_key=_write_key(directory / "apiserver.key", apiserver[1]),
        client_ca=_write_cert(directory / "client-ca.crt", client_ca[0]),
        client_ca_key=_write_key(directory / "client-ca.key", client_ca[1]),
        admin_cert=_write_cert(directory / "admin.crt", admin[0]),
        admin_key=_write_key(directory / "admin.key", admin[1]),
        sa_private_key=_write_key(directory / "sa.key", sa_key),
        sa_public_key=sa_public,
        etcd_ca=_write_cert(directory / "etcd-ca.crt", etcd_ca[0]),
        etcd_cert=_write_cert(directory / "etcd.crt", etcd[0]),
        etcd_key=_write_key(directory / "etcd.key", etcd[1]),
        etcd_client_cert=_write_cert(directory / "etcd-client.crt", etcd_client[0]),
        etcd_client_key=_write_key(directory / "etcd-client.key", etcd_client[1]),
    )


def write_loopback_serving_cert(directory: Path, common_name: str) -> tuple[Path, Path, Path]:
    """A fresh CA and a serving certificate for 127.0.0.1 / localhost it signs, written as ca.crt, tls.crt
    and tls.key under `directory` (the names controller-runtime's webhook server reads): for a webhook the
    apiserver calls on loopback. Returns (ca, cert, key)."""
    directory.mkdir(parents=True, exist_ok=True)
    ca = _ca(f"{common_name}-ca")
    sans: list[x509.GeneralName] = [
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
    ]
    cert, key = _leaf(ca, _name(common_name), ExtendedKeyUsageOID.SERVER_AUTH, sans)
    return (
        _write_cert(directory / "ca.crt", ca[0]),
        _write_cert(directory / "tls.crt", cert),
        _write_key(directory / "tls.key", key),
    )
