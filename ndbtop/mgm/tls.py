"""TLS to the management server (NDB 8.3 and later), set up as mgmapi does.

The client's key and certificate are looked up in ``--ndb-tls-search-path``
(directories separated by ``:``, ``$VAR`` expanded, default ``$HOME/ndb-tls``)
under NDB's names, with no extension: ``ndb-api-private-key`` and
``ndb-api-cert``. The certificate file holds the node's certificate first,
then the CA: the certificates after the first are the only trust anchors. No
host name is checked, only the chain and the expiry, TLS 1.3 at least.

``relaxed`` (the default) goes on in cleartext when TLS cannot be set up (no
files, the server has no certificate); ``strict`` refuses. A failed handshake
is an error in both modes.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import ssl
from dataclasses import dataclass
from pathlib import Path

from ndbtop.compat import SLOTS

DEFAULT_SEARCH_PATH = "$HOME/ndb-tls"
CLIENT_KEY = "ndb-api-private-key"
CLIENT_CERT = "ndb-api-cert"
SERVER_KEY = "ndb-mgm-server-private-key"
SERVER_CERT = "ndb-mgm-server-cert"
MODES = ("relaxed", "strict")

_PEM_CERT = re.compile(
    rb"-----BEGIN CERTIFICATE-----\s*(.+?)\s*-----END CERTIFICATE-----", re.DOTALL
)


@dataclass(frozen=True, **SLOTS)
class TlsOptions:
    """``--ndb-tls-search-path`` and ``--ndb-mgm-tls``."""

    search_path: str = DEFAULT_SEARCH_PATH
    mode: str = "relaxed"

    @property
    def strict(self) -> bool:
        """True for ``--ndb-mgm-tls=strict``."""
        return self.mode == "strict"


@dataclass(frozen=True, **SLOTS)
class TlsSetup:
    """The outcome of looking for the client's key and certificate."""

    context: ssl.SSLContext | None
    reason: str
    """Why there is no context (empty when there is one)."""
    cert_file: Path | None = None


def search_dirs(search_path: str) -> list[Path]:
    """The directories of a search path, in order (empty string: none)."""
    dirs: list[Path] = []
    for entry in search_path.split(":"):
        if not entry:
            continue
        expanded = os.path.expandvars(entry)
        dirs.append(Path.cwd() if expanded == "." else Path(expanded))
    return dirs


def find_file(name: str, search_path: str) -> Path | None:
    """The first ``name`` in the search path's directories, or None."""
    for d in search_dirs(search_path):
        candidate = d / name
        if candidate.is_file():
            return candidate
    return None


def split_chain(pem: bytes) -> list[bytes]:
    """The PEM certificates of a file, in order."""
    return [m.group(0) for m in _PEM_CERT.finditer(pem)]


def not_after(pem_cert: bytes) -> dt.datetime:
    """The end of a PEM certificate's validity (UTC)."""
    der = ssl.PEM_cert_to_DER_cert(pem_cert.decode("ascii"))
    certificate = _children(der)[0][1]  # Certificate ::= SEQUENCE {tbsCertificate, ...}
    tbs = _children(_children(certificate)[0][1])
    i = 1 if tbs[0][0] == 0xA0 else 0  # optional [0] version
    validity = _children(tbs[i + 3][1])
    tag, value = validity[1]
    text = value.decode("ascii")
    fmt = "%y%m%d%H%M%SZ" if tag == 0x17 else "%Y%m%d%H%M%SZ"
    return dt.datetime.strptime(text, fmt).replace(tzinfo=dt.timezone.utc)


def _children(der: bytes) -> list[tuple[int, bytes]]:
    """The (tag, content) of each DER element in ``der`` (one level)."""
    out: list[tuple[int, bytes]] = []
    i = 0
    while i < len(der):
        tag = der[i]
        length = der[i + 1]
        i += 2
        if length & 0x80:
            n = length & 0x7F
            length = int.from_bytes(der[i : i + n], "big")
            i += n
        out.append((tag, der[i : i + length]))
        i += length
    return out


def client_setup(options: TlsOptions, *, now: dt.datetime | None = None) -> TlsSetup:
    """The client's TLS context, or why there is none.

    Files that exist but cannot be used (an expired certificate, a key that
    does not match, no CA after the node's certificate) are set-up failures
    like missing ones: ``relaxed`` goes on in cleartext, ``strict`` refuses.
    """
    where = options.search_path or "''"
    expanded = ":".join(str(d) for d in search_dirs(options.search_path))
    if expanded and expanded != options.search_path:
        where += f" ({expanded})"
    cert = find_file(CLIENT_CERT, options.search_path)
    key = find_file(CLIENT_KEY, options.search_path)
    if cert is None or key is None:
        missing = " and ".join(n for n, f in ((CLIENT_CERT, cert), (CLIENT_KEY, key)) if f is None)
        return TlsSetup(
            None, f"no certificate found: no {missing} in --ndb-tls-search-path {where}"
        )
    try:
        chain = split_chain(cert.read_bytes())
    except OSError as exc:
        return TlsSetup(None, f"cannot read {cert}: {exc.strerror}", cert)
    if not chain:
        return TlsSetup(None, f"{cert} holds no PEM certificate", cert)
    if len(chain) < 2:
        return TlsSetup(
            None, f"no CA in {cert}: the file holds only the node's certificate", cert
        )
    try:
        expires = not_after(chain[0])
    except (ValueError, IndexError):
        return TlsSetup(None, f"{cert}: the first certificate cannot be read", cert)
    if expires <= (now or dt.datetime.now(dt.timezone.utc)):
        return TlsSetup(
            None,
            f"expired certificate: {cert} expired on {expires:%Y-%m-%d %H:%M} UTC "
            "(sign a new one with ndb_sign_keys)",
            cert,
        )
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_REQUIRED
    try:
        ctx.load_cert_chain(cert, key)
        ctx.load_verify_locations(cadata=b"".join(chain[1:]).decode("ascii"))
    except ssl.SSLError as exc:
        return TlsSetup(None, f"cannot use {cert} with {key}: {exc.reason or exc}", cert)
    except OSError as exc:
        return TlsSetup(None, f"cannot read {key}: {exc.strerror}", cert)
    return TlsSetup(ctx, "", cert)


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    """A management server's context: its chain, its CA as the only anchor, client
    certificates required (``SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT``)."""
    chain = split_chain(cert.read_bytes())
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_cert_chain(cert, key)
    ctx.load_verify_locations(cadata=b"".join(chain[1:]).decode("ascii"))
    return ctx


def describe_ssl_error(exc: ssl.SSLError, cert_file: Path | None) -> str:
    """One line naming the cause of a failed handshake or first read."""
    reason = (getattr(exc, "reason", None) or "").upper()
    text = str(exc)
    mine = f" {cert_file}" if cert_file else ""
    if "CERTIFICATE_VERIFY_FAILED" in reason:
        verify = getattr(exc, "verify_message", "") or ""
        if "expired" in verify:
            return "TLS handshake failed: the management server's certificate has expired"
        return (
            "TLS handshake failed: CA mismatch: the management server's certificate is not "
            f"signed by the CA in{mine} ({verify or 'verify failed'})"
        )
    if "UNKNOWN_CA" in reason:
        return (
            f"TLS handshake failed: CA mismatch: the management server does not trust the "
            f"certificate{mine} (alert unknown ca: signed by another CA)"
        )
    if "CERTIFICATE_EXPIRED" in reason:
        return f"TLS handshake failed: the management server says the certificate{mine} has expired"
    if "CERTIFICATE_REQUIRED" in reason:
        return "TLS handshake failed: the management server wants a client certificate"
    return f"TLS handshake failed: {exc.reason or text}"
