"""``start tls`` on a management session, as ``ndb_mgm_connect_tls`` does it."""

from __future__ import annotations

from ndbtop.errors import MgmDisconnected, MgmTlsError
from ndbtop.mgm.replies import ServerVersion, expect_header, expect_ok
from ndbtop.mgm.session import Deadline, MgmSession, deadline
from ndbtop.mgm.tls import TlsOptions, client_setup

TLS_SINCE = (8, 3, 0)
"""The first NDB version whose management server knows ``start tls``."""


async def negotiate_tls(
    session: MgmSession, version: ServerVersion | None, options: TlsOptions,
    timeout: float | Deadline,
) -> str:
    """Upgrade ``session`` to TLS as ``ndb_mgm_connect_tls`` does.

    Returns why the session stays in cleartext (empty when it runs TLS). In
    ``strict`` mode any reason is an error; a failed handshake always is.
    """
    if version is None:
        # ``start tls`` to a server that does not know it would end the session.
        reason = "the management server's version is not known"
    elif (version.major, version.minor, version.build) < TLS_SINCE:
        reason = f"the management server ({version.text}) predates TLS (8.3)"
    else:
        setup = client_setup(options)
        if setup.context is None:
            reason = setup.reason
        else:
            end = deadline(timeout)  # the request, the handshake and the check: one exchange
            reply = await session.request("start tls", [], end)
            expect_header(reply, "start tls reply")
            result = reply.get("result") or ""
            if result == "Ok":
                await session.start_tls(setup.context, max(end.left(), 0.001), setup.cert_file)
                # With TLS 1.3 the server's verdict on our certificate arrives with
                # the first reply: ask for one now, so it is named here.
                try:
                    reply = await session.request("check connection", [], end)
                except MgmDisconnected:
                    # Our own certificate was checked for expiry before: a server that
                    # hangs up now did not accept its CA (an alert, when it sends one,
                    # is named by the session instead).
                    raise MgmTlsError(
                        f"{session.address}: TLS handshake failed: CA mismatch: the "
                        f"management server does not accept the certificate {setup.cert_file} "
                        "(it closed the connection after the handshake)"
                    ) from None
                expect_ok(reply, "check connection reply", "check connection")
                return ""
            if result == "Already Connected":
                return ""
            reason = f"the management server cannot start TLS (start tls: {result})"
    if options.strict:
        session.close()
        raise MgmTlsError(f"{session.address}: --ndb-mgm-tls=strict: {reason}")
    return reason
