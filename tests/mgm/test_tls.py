"""TLS to the management server, with certificates made for this run by ``openssl``:
``start tls`` on the same socket, NDB's file names in the search path, relaxed and strict,
and one line naming the cause of every failure."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.errors import MgmAuthError, MgmTlsError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.listener import EventListener
from ndbtop.mgm.tls import (
    CLIENT_CERT,
    CLIENT_KEY,
    SERVER_CERT,
    SERVER_KEY,
    TlsOptions,
    client_setup,
    find_file,
    server_context,
)
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.tlscerts import CA_CERT, make_ca, make_cluster_certs, sign_node

StartSim = Callable[..., Awaitable[Simulator]]

@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Directories of client files: good, signed by another CA, expired, without the CA."""
    root = tmp_path_factory.mktemp("tls")
    good = root / "good"
    make_cluster_certs(good)
    other_ca = root / "other-ca"
    make_ca(other_ca, "Another CA")
    other = root / "other"
    sign_node(other_ca, other, CLIENT_CERT, CLIENT_KEY, common_name="ndbtop")
    untrusted = root / "untrusted"
    sign_node(other_ca, untrusted, CLIENT_CERT, CLIENT_KEY, common_name="ndbtop",
              with_ca=False)
    # Signed by another CA but trusting the cluster's: the server refuses it (unknown ca).
    (untrusted / CLIENT_CERT).write_bytes(
        (untrusted / CLIENT_CERT).read_bytes() + (good / CA_CERT).read_bytes()
    )
    expired = root / "expired"
    sign_node(good, expired, CLIENT_CERT, CLIENT_KEY, common_name="ndbtop", days=-1)
    no_ca = root / "no-ca"
    sign_node(good, no_ca, CLIENT_CERT, CLIENT_KEY, common_name="ndbtop", with_ca=False)
    empty = root / "empty"
    empty.mkdir()
    return {"good": good, "other": other, "untrusted": untrusted, "expired": expired,
            "no-ca": no_ca, "empty": empty}


async def tls_sim(start_sim: StartSim, certs: dict[str, Path], *, require: bool) -> Simulator:
    good = certs["good"]
    return await start_sim("threads", require_tls=require,
                           tls=server_context(good / SERVER_CERT, good / SERVER_KEY))


def client(sim: Simulator, directory: Path, mode: str = "relaxed") -> MgmClient:
    cs = parse_connectstring(sim.connectstring)
    return MgmClient(replace(cs, tls=TlsOptions(str(directory), mode)), timeout=3.0)


def test_files_are_found_by_ndb_names_in_the_search_path_in_order(
    certs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TLSDIR", str(certs["good"]))
    path = f"{tmp_path}:$TLSDIR:{certs['other']}"
    assert find_file(CLIENT_CERT, path) == certs["good"] / CLIENT_CERT
    assert find_file(CLIENT_CERT, "") is None
    assert client_setup(TlsOptions(path)).context is not None
    assert client_setup(TlsOptions(str(certs["no-ca"]))).reason.startswith("no CA in ")


async def test_strict_against_a_tls_server(
    start_sim: StartSim, certs: dict[str, Path]
) -> None:
    sim = await tls_sim(start_sim, certs, require=True)
    c = client(sim, certs["good"], "strict")
    try:
        nodes = await c.get_status()
        assert {n.node_id for n in nodes if n.type == "NDB"} == {2, 3}
        assert c._session is not None and c._session.tls
        assert c.cleartext_reason == ""
    finally:
        await c.close()
    # The event listener opens its own connection, over TLS too.
    address = parse_connectstring(sim.connectstring).addresses[0]
    listener = EventListener(address, {250: 7}, tls=TlsOptions(str(certs["good"]), "strict"))
    await listener.open()
    try:
        assert listener._session is not None and listener._session.tls
    finally:
        await listener.close()


async def test_relaxed_against_a_cleartext_server_goes_on_in_cleartext(
    start_sim: StartSim, certs: dict[str, Path]
) -> None:
    sim = await start_sim("threads")  # no certificate: start tls answers Failed
    c = client(sim, certs["good"])
    try:
        assert len(await c.get_status()) > 2
        assert c.cleartext_reason == "the management server cannot start TLS (start tls: Failed)"
    finally:
        await c.close()


async def test_strict_against_a_cleartext_server_is_a_clear_error(
    start_sim: StartSim, certs: dict[str, Path]
) -> None:
    sim = await start_sim("threads")
    c = client(sim, certs["good"], "strict")
    with pytest.raises(MgmTlsError) as info:
        await c.get_status()
    assert str(info.value) == (
        f"{sim.connectstring}: --ndb-mgm-tls=strict: the management server cannot start "
        "TLS (start tls: Failed)"
    )


@pytest.mark.parametrize("mode", ["relaxed", "strict"])
async def test_a_server_signed_by_another_ca_is_a_ca_mismatch(
    start_sim: StartSim, certs: dict[str, Path], mode: str
) -> None:
    sim = await tls_sim(start_sim, certs, require=True)
    c = client(sim, certs["other"], mode)
    with pytest.raises(MgmTlsError) as info:
        await c.get_status()
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(
        f"{sim.connectstring}: TLS handshake failed: CA mismatch: the management server's "
        f"certificate is not signed by the CA in {certs['other'] / CLIENT_CERT}"
    )


async def test_a_client_certificate_the_server_does_not_trust_is_named(
    start_sim: StartSim, certs: dict[str, Path]
) -> None:
    sim = await tls_sim(start_sim, certs, require=True)
    c = client(sim, certs["untrusted"])
    with pytest.raises(MgmTlsError) as info:
        await c.get_status()
    # OpenSSL's server sends the alert 'unknown ca' (named as such when it arrives); the
    # simulated one, on asyncio, hangs up without it.
    cert = certs["untrusted"] / CLIENT_CERT
    assert str(info.value) in (
        f"{sim.connectstring}: TLS handshake failed: CA mismatch: the management server does "
        f"not trust the certificate {cert} (alert unknown ca: signed by another CA)",
        f"{sim.connectstring}: TLS handshake failed: CA mismatch: the management server does "
        f"not accept the certificate {cert} (it closed the connection after the handshake)",
    )


async def test_requires_tls_without_a_certificate_names_the_search_path(
    start_sim: StartSim, certs: dict[str, Path]
) -> None:
    sim = await tls_sim(start_sim, certs, require=True)
    c = client(sim, certs["empty"])
    with pytest.raises(MgmAuthError) as info:
        await c.get_status()
    assert str(info.value) == (
        "management server requires TLS (Authorization failed: Requires TLS); in cleartext "
        f"because no certificate found: no {CLIENT_CERT} and {CLIENT_KEY} in "
        f"--ndb-tls-search-path {certs['empty']}"
    )
    address = parse_connectstring(sim.connectstring).addresses[0]
    listener = EventListener(address, {250: 7}, tls=TlsOptions(str(certs["empty"])))
    with pytest.raises(MgmAuthError, match=r"Requires TLS.*no certificate found"):
        await listener.open()


async def test_an_expired_client_certificate_is_named(
    start_sim: StartSim, certs: dict[str, Path]
) -> None:
    sim = await tls_sim(start_sim, certs, require=True)
    relaxed = client(sim, certs["expired"])
    with pytest.raises(MgmAuthError) as info:
        await relaxed.get_status()
    cert = certs["expired"] / CLIENT_CERT
    assert f"in cleartext because expired certificate: {cert} expired on " in str(info.value)
    strict = client(sim, certs["expired"], "strict")
    with pytest.raises(MgmTlsError, match=r"--ndb-mgm-tls=strict: expired certificate: "):
        await strict.get_status()


def test_the_command_line_speaks_tls_to_a_server_that_requires_it(
    certs: dict[str, Path], threaded_sim: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    good = certs["good"]
    sim = threaded_sim("threads", tls=server_context(good / SERVER_CERT, good / SERVER_KEY),
                       require_tls=True)
    base = ["--once", "--json", "--no-sql", "--no-host", "-c", sim.connectstring]
    assert main([*base, "--ndb-tls-search-path", str(good), "--ndb-mgm-tls", "strict"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["data_nodes_started"] == 2
    assert report["summary"]["single_user_mode"] is False
    assert main([*base, "--ndb-tls-search-path", str(certs["empty"])]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Requires TLS" in err and str(certs["empty"]) in err


def test_sim_with_tls_dir_prints_a_command_that_connects_over_tls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "ndb-tls"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ndbtop", "sim", "--scenario", "threads", "--no-sql",
         "--require-tls", "--tls-dir", str(directory)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        command = None
        for line in proc.stdout:
            if line.strip().startswith("ndbtop -c "):
                command = line.strip()
                break
        assert command is not None, proc.stderr.read() if proc.stderr else ""
        argv = shlex.split(command)[1:]
        assert argv[-4:] == ["--ndb-tls-search-path", str(directory.resolve()),
                             "--ndb-mgm-tls", "strict"]
        assert (directory / CLIENT_CERT).is_file() and (directory / SERVER_KEY).is_file()
        assert main([*argv, "--once", "--json", "--no-host"]) == 0
        assert json.loads(capsys.readouterr().out)["summary"]["data_nodes_started"] == 2
    finally:
        proc.terminate()
        proc.wait(30)
