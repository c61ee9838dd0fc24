"""clusters.toml: every key, every refusal naming its line, and the public API."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ndbtop.contexts import ContextsError, clusters_path, load_contexts, parse_contexts
from ndbtop.contexts.keys import KEYS

EXAMPLE = """\
# The README's example.
[prod]
connectstring = "mgm1.prod:1186,mgm2.prod:1186"
mysql_host = "sql1.prod,sql2.prod"
mysql_user = "monitor"
password_command = "pass show ndb/prod-monitor"
ndb_tls_search_path = "/etc/ndb-tls/prod"
production = true
color = "red"
replicates_to = "dr"

[dr]
connectstring = "mgm1.dr:1186"
mysql_host = "sql1.dr"
mysql_port = 3307
login_path = "dr"
ssh_config = "~/.ssh/config.dr"
ssh_option = ["ProxyJump=bastion.dr"]
read_only = true
color = "blue"

[staging]
connectstring = "mgm.staging"
no_sql = true
color = "#2e8b57"
"""
WHERE = Path("clusters.toml")


def parse(text: str):  # type: ignore[no-untyped-def]
    return parse_contexts(text, WHERE)


def refusal(text: str) -> str:
    with pytest.raises(ContextsError) as caught:
        parse(text)
    return str(caught.value)


def test_the_readme_example_reads_as_three_contexts_in_file_order() -> None:
    contexts = parse(EXAMPLE)
    assert list(contexts) == ["prod", "dr", "staging"]
    prod, dr, staging = contexts.contexts
    assert prod.connectstring == "mgm1.prod:1186,mgm2.prod:1186"
    assert prod.option("mysql_host") == "sql1.prod,sql2.prod"
    assert prod.option("ndb_tls_search_path") == "/etc/ndb-tls/prod"
    assert prod.password_command == "pass show ndb/prod-monitor"
    assert (prod.production, prod.read_only, prod.color) == (True, False, "red")
    assert (dr.option("mysql_port"), dr.option("login_path")) == (3307, "dr")
    # ssh settings turn the ssh reading of the hosts on.
    assert dr.option("ssh") is True and dr.option("ssh_option") == ("ProxyJump=bastion.dr",)
    assert dr.read_only and not dr.production
    assert staging.option("no_sql") is True and staging.color == "#2e8b57"
    assert prod.line == 2 and dr.line == 12
    assert prod.where("color") == "clusters.toml, line 9"


def test_replication_is_exposed_for_the_contexts_that_name_each_other() -> None:
    contexts = parse(EXAMPLE)
    assert contexts.replication() == (("prod", "dr"),)
    assert [c.name for c in contexts.replicas_of("prod")] == ["dr"]
    assert [c.name for c in contexts.sources_of("dr")] == ["prod"]
    assert contexts.replicas_of("dr") == ()
    many = parse('[a]\nreplicates_to = ["b", "c"]\n[b]\n[c]\n')
    assert many.replication() == (("a", "b"), ("a", "c"))


def test_every_key_the_readme_lists_is_known() -> None:
    names = {k.name for k in KEYS}
    assert {"connectstring", "mysql_host", "mysql_port", "mysql_user", "password_command",
            "ndb_tls_search_path", "ssh_config", "read_only", "production", "color",
            "replicates_to", "login_path", "defaults_group_suffix"} <= names


def test_an_unknown_key_is_refused_naming_its_line() -> None:
    text = EXAMPLE.replace('mysql_port = 3307', 'mysql_prot = 3307')
    said = refusal(text)
    assert said.startswith("clusters.toml, line 15: unknown key 'mysql_prot' in context dr")
    assert "mysql_port" in said  # the known keys are listed


def test_a_password_in_the_file_is_an_unknown_key() -> None:
    said = refusal('[prod]\nconnectstring = "m"\npassword = "secret"\n')
    assert said.startswith("clusters.toml, line 3: unknown key 'password'")
    assert "secret" not in said


@pytest.mark.parametrize(("line", "wants"), [
    ("mysql_port = \"3306\"", "mysql_port in context x must be a TCP port number"),
    ("mysql_port = 70000", "mysql_port in context x must be a TCP port number"),
    ("read_only = \"yes\"", "read_only in context x must be true or false"),
    ("color = \"chartreuse\"", "color in context x must be a colour"),
    ("ssh_option = \"ProxyJump=b\"", "ssh_option in context x must be a list of strings"),
    ("mysql_host = \"\"", "mysql_host in context x must be a non-empty string"),
    ("mysql_user = \"a\\u001bb\"", "without control characters"),
    ("ndb_mgm_tls = \"loose\"", "must be relaxed or strict"),
    ("replicates_to = 3", "must be a context's name or a list of them"),
])
def test_a_bad_value_is_refused_naming_its_line(line: str, wants: str) -> None:
    said = refusal(f"[x]\nconnectstring = \"m\"\n{line}\n")
    assert said.startswith("clusters.toml, line 3: ")
    assert wants in said


def test_replicates_to_must_name_another_context_of_the_file() -> None:
    assert refusal('[a]\nreplicates_to = "b"\n') == (
        "clusters.toml, line 2: replicates_to in context a names 'b', which is no context "
        "of this file")
    assert refusal('[a]\n\nreplicates_to = ["a"]\n') == (
        "clusters.toml, line 3: replicates_to in context a names itself")


def test_the_file_shape_is_refused_where_it_goes_wrong() -> None:
    assert refusal('connectstring = "m"\n[a]\n').startswith(
        "clusters.toml, line 1: 'connectstring' is outside a context")
    assert "line 3: unknown key 'tls'" in refusal('[a]\nconnectstring = "m"\n[a.tls]\nx = 1\n')
    assert "is not a context name" in refusal('["bad name"]\nconnectstring = "m"\n')
    said = refusal('[a]\nconnectstring = "m\n')
    assert said.startswith("clusters.toml: not TOML: ") and "line 2" in said


def test_contradictions_are_refused() -> None:
    assert "ssh = false in context a beside ssh_user" in refusal(
        '[a]\nssh = false\nssh_user = "ndb"\n')
    assert "no_sql in context a beside a SQL node's key" in refusal(
        '[a]\nno_sql = true\nmysql_host = "sql1"\n')


def test_the_file_is_found_under_xdg_config_home_or_dot_config(tmp_path: Path) -> None:
    assert clusters_path({"XDG_CONFIG_HOME": "/x"}) == Path("/x/ndbtop/clusters.toml")
    assert clusters_path({"HOME": "/home/u"}) == Path("/home/u/.config/ndbtop/clusters.toml")


def test_a_missing_file_says_where_it_was_looked_for() -> None:
    with pytest.raises(ContextsError, match=r"no contexts: .*clusters.toml does not exist"):
        load_contexts()


def test_a_file_others_can_write_is_refused(clusters_file) -> None:  # type: ignore[no-untyped-def]
    path = clusters_file(EXAMPLE)
    assert list(load_contexts()) == ["prod", "dr", "staging"]
    for mode in (0o620, 0o602):
        os.chmod(path, mode)
        with pytest.raises(ContextsError, match=r"can be written by others \(-rw-"):
            load_contexts()
    os.chmod(path, 0o600)
    os.chmod(path.parent, 0o777)
    with pytest.raises(ContextsError, match=r"its directory .* can be written by others"):
        load_contexts()
    os.chmod(path.parent, 0o700)
    assert len(load_contexts()) == 3


def test_a_file_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ContextsError, match="is not a regular file"):
        load_contexts(Path("/dev/zero"))
    (tmp_path / "d").mkdir()
    with pytest.raises(ContextsError, match="cannot read"):
        load_contexts(tmp_path / "d")


def test_a_name_the_file_lacks_lists_the_ones_it_has() -> None:
    with pytest.raises(ContextsError, match=r"no context 'qa' in clusters.toml \(it has: prod, "
                       r"dr, staging\)"):
        parse(EXAMPLE).named("qa")
