"""A throw-away certificate authority for one run's local cluster: mutual TLS with nobody else.

Dask unpickles what it is sent, so whoever reaches a scheduler or a worker runs code as the user
it runs as (root, for the sandbox); on loopback that is every local user. `run --cluster local:N`
therefore makes a CA for the run and signs a certificate for the scheduler, the workers and the
driver (each its own key); every connection must present one this CA signed (`distributed`'s
`Security` requires a client certificate), and nothing else can: the CA's key is never written
anywhere and is gone with this process, and the others' keys are files of mode 0600 in a private
folder (0700) of this process's user, removed when the cluster stops.

`cryptography` (a dependency of the `dask` extra) makes the keys and certificates: X.509 by hand is
no job for this project.
"""

from __future__ import annotations

import datetime
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROLES = ("scheduler", "worker", "client")
"""Dask's three roles, each with a certificate and key of its own (`Security`'s tls_<role>_cert)."""
VALID = datetime.timedelta(days=30)
"""Long enough for any run; the certificates are worthless once their folder is removed."""


@dataclass(frozen=True)
class ClusterCertificates:
    """The driver's files for a `tls://` cluster of other machines: the cluster's CA, its certificate and key."""

    ca: Path
    cert: Path
    key: Path

    def problem(self) -> str | None:
        """What makes these files unusable (missing, or a key other users may read), or None."""
        for what, path in (("CA certificate", self.ca), ("certificate", self.cert), ("key", self.key)):
            if not path.is_file():
                return f"the {what} {path} is not a file"
        mode = self.key.stat().st_mode & 0o777
        if mode & 0o077:
            return f"the key {self.key} may be read by other users (mode {mode:o}): chmod 600 {self.key}"
        return None


@dataclass(frozen=True)
class ClusterCredentials:
    """The files of one run's CA: the CA's certificate, and each role's certificate and key."""

    folder: Path
    ca_file: Path

    def cert(self, role: str) -> Path:
        return self.folder / f"{role}.pem"

    def key(self, role: str) -> Path:
        return self.folder / f"{role}.key"

    def remove(self) -> None:
        """Delete the folder and every key in it (nothing is left to connect with)."""
        shutil.rmtree(self.folder, ignore_errors=True)


def make_credentials() -> ClusterCredentials:
    """A fresh CA and a certificate for each of `ROLES`, in a new private folder (0700, keys 0600).

    Raises ImportError naming the extra when `cryptography` is missing.
    """
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError:
        raise ImportError("--cluster local:N needs cryptography for its TLS: pip install 'seka-arena[dask]'") from None

    folder = Path(tempfile.mkdtemp(prefix="seka-cluster-tls-"))  # mode 0700, this user's
    try:
        now = datetime.datetime.now(datetime.UTC)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"seka-arena run CA {os.urandom(8).hex()}")])
        ca_cert = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
                   .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + VALID)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                                key_encipherment=False, data_encipherment=False, key_agreement=False,
                                                key_cert_sign=True, crl_sign=True, encipher_only=False,
                                                decipher_only=False), critical=True)
                   .sign(ca_key, hashes.SHA256()))
        credentials = ClusterCredentials(folder, folder / "ca.pem")
        _write(credentials.ca_file, ca_cert.public_bytes(serialization.Encoding.PEM))
        for role in ROLES:
            key = ec.generate_private_key(ec.SECP256R1())
            cert = (x509.CertificateBuilder()
                    .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"seka-arena {role}")]))
                    .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
                    .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + VALID)
                    .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                    .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                          ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
                    .sign(ca_key, hashes.SHA256()))
            _write(credentials.key(role), key.private_bytes(serialization.Encoding.PEM,
                                                            serialization.PrivateFormat.PKCS8,
                                                            serialization.NoEncryption()))
            _write(credentials.cert(role), cert.public_bytes(serialization.Encoding.PEM))
        return credentials
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _write(path: Path, data: bytes) -> None:
    # Created 0600 from the start (never readable by others, not even for a moment), and never over a file.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)
