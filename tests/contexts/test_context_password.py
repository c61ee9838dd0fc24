"""Where a context's SQL password comes from: a command, a login path of ~/.mylogin.cnf, or
an option-file group; never the contexts file, never argv."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from ndbtop.cli.context_args import apply_context
from ndbtop.cli.parser import build_parser
from ndbtop.cli.sources import ndbinfo_reader
from ndbtop.contexts import ContextsError, parse_contexts
from ndbtop.contexts.password import run_password_command
from ndbtop.errors import UsageError
from ndbtop.ndbinfo.mylogin import (
    decrypt_block,
    decrypt_login_file,
    fold_key,
    round_keys,
    tables,
)
from ndbtop.ndbinfo.options import resolve_mysql_options

# FIPS-197 appendix C.1: AES-128.
FIPS_KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
FIPS_PLAIN = bytes.fromhex("00112233445566778899aabbccddeeff")
FIPS_CIPHER = bytes.fromhex("69c4e0d86a7b0430d8cdb78070b4c55a")


def _xtime(a: int) -> int:
    a <<= 1
    return a ^ 0x11B if a & 0x100 else a


def encrypt_block(block: bytes, keys: list[list[int]]) -> bytes:
    """AES-128's forward cipher (FIPS-197 §5.1), to write login path files as
    mysql_config_editor does."""
    sbox = tables()[0]
    s = [b ^ k for b, k in zip(block, keys[0])]
    for r in range(1, 11):
        s = [sbox[b] for b in s]
        s = [s[row + 4 * ((col + row) % 4)] for col in range(4) for row in range(4)]
        if r < 10:
            mixed = []
            for c in range(0, 16, 4):
                a = s[c:c + 4]
                mixed += [_xtime(a[i]) ^ (_xtime(a[(i + 1) % 4]) ^ a[(i + 1) % 4])
                          ^ a[(i + 2) % 4] ^ a[(i + 3) % 4] for i in range(4)]
            s = mixed
        s = [b ^ k for b, k in zip(s, keys[r])]
    return bytes(s)


def login_file_bytes(lines: list[str], key: bytes = bytes(range(7, 27))) -> bytes:
    """A .mylogin.cnf: 4 unused bytes, the 20-byte key, then each line as its cipher's
    length (4 bytes, little-endian) and AES-128-ECB of the line with PKCS#7 padding
    (mysql_config_editor.cc encrypt_and_write_file; mysys/my_default.cc mysql_file_getline
    reads it back)."""
    keys = round_keys(fold_key(key))
    out = bytearray(b"\0\0\0\0" + key)
    for line in lines:
        data = line.encode()
        pad = 16 - len(data) % 16
        data += bytes([pad]) * pad
        cipher = b"".join(encrypt_block(data[i:i + 16], keys) for i in range(0, len(data), 16))
        out += len(cipher).to_bytes(4, "little") + cipher
    return bytes(out)


def test_aes_matches_the_fips_197_vector() -> None:
    keys = round_keys(FIPS_KEY)
    assert encrypt_block(FIPS_PLAIN, keys) == FIPS_CIPHER
    assert decrypt_block(FIPS_CIPHER, keys) == FIPS_PLAIN


def test_the_key_is_folded_to_16_bytes_by_xor() -> None:
    # my_aes_create_key: byte i of the 20 is XORed into byte i % 16 of the key.
    assert fold_key(bytes(range(1, 21))) == bytes(
        [1 ^ 17, 2 ^ 18, 3 ^ 19, 4 ^ 20, *range(5, 17)])


def test_a_login_path_file_decrypts_to_its_option_lines() -> None:
    data = login_file_bytes(["[client]\n", "user = \"me\"\n", "[prod]\n",
                             "password = \"pa ss#1\"\n"])
    assert decrypt_login_file(data) == '[client]\nuser = "me"\n[prod]\npassword = "pa ss#1"\n'
    with pytest.raises(ValueError, match="line of 7 bytes"):
        decrypt_login_file(data[:24] + (7).to_bytes(4, "little") + b"x" * 7)


def write_login_file(home: Path, lines: list[str], mode: int = 0o600) -> Path:
    path = home / ".mylogin.cnf"
    path.write_bytes(login_file_bytes(lines))
    os.chmod(path, mode)
    return path


def test_a_login_path_gives_the_password_as_the_mysql_client_reads_it(tmp_path: Path) -> None:
    write_login_file(tmp_path, ["[client]\n", "user = \"reader\"\n", "[prod]\n",
                                "user = \"monitor\"\n", "password = \"s3cret\"\n",
                                "host = \"sql1.prod\"\n"])
    options = resolve_mysql_options({}, {}, None, tmp_path, socket_paths=(),
                                    login_path="prod")
    assert (options.user, options.password, options.host) == ("monitor", "s3cret", "sql1.prod")
    assert options.origin("password") == f"{tmp_path / '.mylogin.cnf'} [prod]"
    # The command line still wins; MYSQL_TEST_LOGIN_FILE moves the file, as for mysql.
    assert resolve_mysql_options({"user": "me"}, {}, None, tmp_path, socket_paths=(),
                                 login_path="prod").user == "me"
    moved = tmp_path / "elsewhere.cnf"
    (tmp_path / ".mylogin.cnf").rename(moved)
    env = {"MYSQL_TEST_LOGIN_FILE": str(moved)}
    assert resolve_mysql_options({}, env, None, tmp_path, socket_paths=(),
                                 login_path="prod").password == "s3cret"


def test_a_login_path_that_cannot_be_used_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"no login path file .*mylogin.cnf"):
        resolve_mysql_options({}, {}, None, tmp_path, login_path="prod")
    path = write_login_file(tmp_path, ["[dr]\n", "password = \"x\"\n"])
    with pytest.raises(UsageError, match="has no login path of that name"):
        resolve_mysql_options({}, {}, None, tmp_path, login_path="prod")
    os.chmod(path, 0o640)
    # mysys check_file_permissions: a login file others may read is not used.
    with pytest.raises(UsageError, match=r"may be read by others \(-rw-r-----\)"):
        resolve_mysql_options({}, {}, None, tmp_path, login_path="dr")


def test_a_group_suffix_reads_the_password_from_that_group_of_my_cnf(tmp_path: Path) -> None:
    (tmp_path / ".my.cnf").write_text("[client]\nuser=u\npassword=common\n"
                                      "[client_prod]\npassword=prodpw\n[ndbtop_dr]\nuser=d\n")
    options = resolve_mysql_options({}, {}, None, tmp_path, socket_paths=(),
                                    group_suffix="_prod")
    assert (options.user, options.password) == ("u", "prodpw")
    assert options.origin("password") == f"{tmp_path / '.my.cnf'} [client_prod]"
    assert resolve_mysql_options({}, {}, None, tmp_path, socket_paths=(),
                                 group_suffix="_dr").user == "d"


def context(text: str, path: Path = Path("clusters.toml")) -> Any:
    return parse_contexts(text, path).contexts[0]


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "pw"
    path.write_text(f"#!{sys.executable}\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_a_password_command_prints_the_password(tmp_path: Path) -> None:
    command = script(tmp_path, "import sys; print(sys.stdin.read() == '' and 'p@ss w' or 'tty')")
    c = context(f'[prod]\npassword_command = "{command} --name prod"\n')
    assert run_password_command(c) == "p@ss w"


@pytest.mark.parametrize(("body", "said"), [
    ("import sys; sys.stderr.write('vault sealed\\n'); sys.exit(3)",
     "exited 3: vault sealed"),
    ("import time; time.sleep(5)", "no answer within 0.5 s"),
])
def test_a_password_command_that_fails_is_one_line(tmp_path: Path, body: str,
                                                    said: str) -> None:
    c = context(f'[prod]\npassword_command = "{script(tmp_path, body)}"\n')
    with pytest.raises(ContextsError) as caught:
        run_password_command(c, timeout=0.5)
    assert str(caught.value).startswith(
        "password_command of context prod (clusters.toml, line 2): ")
    assert said in str(caught.value)
    missing = context('[prod]\npassword_command = "/nonexistent/pass show x"\n')
    with pytest.raises(ContextsError, match="no program '/nonexistent/pass'"):
        run_password_command(missing)


def test_the_sql_node_gets_the_commands_password_unless_the_line_gives_one(
        tmp_path: Path, clusters_file, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    command = script(tmp_path, "print('from-command')")
    clusters_file(f'[prod]\nconnectstring = "m"\nmysql_host = "sql1"\n'
                  f'password_command = "{command}"\n')
    monkeypatch.setenv("MYSQL_PWD", "from-environment")
    args = build_parser().parse_args(["check", "--context", "prod"])
    apply_context(args, {})
    reader = ndbinfo_reader(args)
    assert reader is not None
    options = reader[0].options  # type: ignore[attr-defined]
    assert options.password == "from-command"
    assert options.origin("password") == "password_command of context prod"
    assert "from-command" not in repr(options) and "from-command" not in reader[1]
    args = build_parser().parse_args(["check", "--context", "prod", "-pgiven"])
    apply_context(args, {})
    assert ndbinfo_reader(args)[0].options.password == "given"  # type: ignore[index,attr-defined]
