"""Certificates for a simulated TLS cluster, made with the ``openssl`` command line.

The layout is NDB's (tls.md): in one directory a cluster CA
(``NDB-Cluster-cert`` / ``NDB-Cluster-private-key``), the management server's
``ndb-mgm-server-cert`` / ``ndb-mgm-server-private-key`` and a client's
``ndb-api-cert`` / ``ndb-api-private-key``. Each certificate file holds the
node's certificate, then the CA. Keys are EC P-256 like ndb_sign_keys makes.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
from pathlib import Path

from ndbtop.errors import NdbtopError
from ndbtop.mgm.tls import CLIENT_CERT, CLIENT_KEY, SERVER_CERT, SERVER_KEY

CA_CERT = "NDB-Cluster-cert"
CA_KEY = "NDB-Cluster-private-key"
_EC = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes")


def _openssl(*args: str, cwd: Path) -> None:
    exe = shutil.which("openssl")
    if exe is None:
        raise NdbtopError("the openssl command is needed to make test certificates")
    done = subprocess.run(
        [exe, *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=60
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise NdbtopError(f"openssl {args[0]}: {last}")


def make_ca(directory: Path, name: str = "NDB Cluster CA") -> None:
    """A self-signed cluster CA in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    _openssl(
        "req", "-x509", *_EC, "-keyout", CA_KEY, "-out", CA_CERT, "-days", "3650",
        "-subj", f"/CN={name}",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=directory,
    )
    (directory / CA_KEY).chmod(0o600)


def sign_node(
    ca_dir: Path, out_dir: Path, cert_name: str, key_name: str, *, common_name: str,
    days: int = 365, with_ca: bool = True,
) -> None:
    """A node key and certificate signed by the CA in ``ca_dir``, written to ``out_dir``.

    ``days`` may be negative (an expired certificate); without ``with_ca`` the
    certificate file holds only the node's certificate.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    csr = out_dir / f"{cert_name}.csr"
    leaf = out_dir / f"{cert_name}.leaf"
    _openssl("req", *_EC, "-keyout", str(out_dir / key_name), "-out", str(csr),
             "-subj", f"/CN={common_name}", cwd=out_dir)
    _openssl(
        "x509", "-req", "-in", str(csr), "-CA", str(ca_dir / CA_CERT),
        "-CAkey", str(ca_dir / CA_KEY), "-set_serial", str(secrets.randbelow(10**12) + 1),
        "-days", str(days), "-out", str(leaf), cwd=out_dir,
    )
    chain = leaf.read_bytes() + ((ca_dir / CA_CERT).read_bytes() if with_ca else b"")
    (out_dir / cert_name).write_bytes(chain)
    (out_dir / key_name).chmod(0o600)
    csr.unlink()
    leaf.unlink()


def make_cluster_certs(directory: Path) -> None:
    """CA, management server and client certificates in one directory (kept if present)."""
    if all((directory / n).is_file() for n in (CA_CERT, SERVER_CERT, SERVER_KEY,
                                                CLIENT_CERT, CLIENT_KEY)):
        return
    make_ca(directory)
    sign_node(directory, directory, SERVER_CERT, SERVER_KEY, common_name="ndb_mgmd")
    sign_node(directory, directory, CLIENT_CERT, CLIENT_KEY, common_name="ndbtop")
