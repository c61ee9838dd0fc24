"""A data node's error log read over SSH is never read through a symbolic link.

ndbtop often logs in to data node hosts as root while the data node runs as another user,
who owns its DataDir: a ``ndb_<id>_error.log`` made a link to ``/etc/shadow`` would put
that file on the screen and in a bundle. The fixed script refuses a link, and opens the
file with ``O_NOFOLLOW`` (``dd iflag=nofollow``) so a link swapped in after that check is
not followed either.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from ndbtop.collect.hosts import HostSet
from ndbtop.host.remote import SCRIPT
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig, DataNodeConfig
from tests.ssh.conftest import GOOD_HOSTS, PrivateSshd
from tests.ssh.test_error_log import NEW, OLD, error_log

SECRET = "root:$6$secret-hash:19000:0:99999:7:::\n"


def script(*requests: str) -> list[str]:
    """The fixed script run by ``sh`` here, as the host runs it, answering ``requests``."""
    done = subprocess.run(["sh", "-c", SCRIPT], input="t\n" + "".join(requests), text=True,
                          capture_output=True, timeout=30, check=True)
    return done.stdout.splitlines()


def test_the_script_reads_a_file_and_names_a_link_without_reading_it(tmp_path: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_text(SECRET)
    log = tmp_path / "ndb_2_error.log"
    log.write_text("Time: x\n")
    link = tmp_path / "ndb_3_error.log"
    link.symlink_to(secret)
    assert script(f"e\n{log}\n")[1:] == ["@t log", "Time: x", "", "@t end"]
    assert script(f"e\n{link}\n")[1:] == ["@t link", "@t end"]
    assert script(f"e\n{tmp_path / 'none'}\n")[1:] == ["@t nolog", "@t end"]


async def test_a_linked_error_log_is_a_problem_named_never_its_target(
    sshd: PrivateSshd, tmp_path: Path
) -> None:
    secret = tmp_path / "shadow"
    secret.write_text(SECRET + error_log([OLD, NEW]))
    datadir = tmp_path / "data"
    datadir.mkdir()
    (datadir / "ndb_2_error.log").symlink_to(secret)
    config = ClusterConfig(1, "c", 2, (), (
        DataNodeConfig(2, 0, host=GOOD_HOSTS[0], data_dir=str(datadir)),))
    hosts = HostSet(None, sshd.options, 0.5, lambda: None)
    hosts.allow_reads()
    try:
        hosts.update((NodeStatus(2, "NDB", "STARTED"),), config)
        hosts.update((NodeStatus(2, "NDB", "NO_CONTACT"),), config)
        await hosts.read_error_logs([], config)
        entry = hosts.error_logs[2]
        assert entry.problem == f"{datadir}/ndb_2_error.log is a symbolic link: not followed"
        assert entry.error_code is None and entry.error_data is None
        assert "secret-hash" not in repr(entry)
        free, why = hosts.disk_free[2]
        assert free is not None and why is None  # the DataDir is read all the same
    finally:
        await hosts.stop()
