"""``~/.mylogin.cnf``, the login path file of ``mysql_config_editor``, read as MySQL reads it.

The file is an option file obfuscated, not protected: 4 unused bytes, a 20-byte key, then
each line as a 4-byte little-endian length and that many bytes of AES-128-ECB (PKCS#7
padding) under the key folded to 16 bytes by XOR (``mysql_file_getline`` in
mysys/my_default.cc, ``my_aes_create_key`` in mysys/my_aes.cc). MySQL ignores the file
unless only its owner may read and write it, and so does ndbtop. AES is written out here,
decryption only: the standard library has none, and the file is a few hundred bytes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from ndbtop.errors import UsageError
from ndbtop.files import UnfitFile, read_limited

LOGIN_KEY_LEN = 20
HEADER_LEN = 4 + LOGIN_KEY_LEN
LIMIT = 1 << 20
"""Bytes the login path file may hold."""
LINE_LIMIT = 4096
"""Bytes of one line's cipher text (``mysql_file_getline``'s buffer)."""


def login_file(env: Mapping[str, str], home: Path) -> Path:
    """``$MYSQL_TEST_LOGIN_FILE``, else ``~/.mylogin.cnf`` (``my_default_get_login_file``)."""
    given = env.get("MYSQL_TEST_LOGIN_FILE")
    return Path(given) if given else home / ".mylogin.cnf"


def _xtime(a: int) -> int:
    a <<= 1
    return (a ^ 0x11B) if a & 0x100 else a


@lru_cache(maxsize=1)
def tables() -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """AES's S-box, its inverse, and multiplication by 9, 11, 13 and 14 in GF(2^8), made
    from the field's definition rather than typed in."""
    exp, log = [0] * 255, [0] * 256
    p = 1
    for i in range(255):
        exp[i], log[p] = p, i
        p ^= _xtime(p)
    sbox = [0] * 256
    for a in range(256):
        b = 0 if a == 0 else exp[(255 - log[a]) % 255]
        s = b
        for shift in range(1, 5):
            s ^= ((b << shift) | (b >> (8 - shift))) & 0xFF
        sbox[a] = s ^ 0x63
    inverse = [0] * 256
    for a, s in enumerate(sbox):
        inverse[s] = a

    def times(k: int) -> tuple[int, ...]:
        return tuple(0 if a == 0 else exp[(log[a] + log[k]) % 255] for a in range(256))

    return tuple(sbox), tuple(inverse), (times(9), times(11), times(13), times(14))


def round_keys(key: bytes) -> list[list[int]]:
    """The 11 round keys of AES-128, 16 bytes each."""
    sbox = tables()[0]
    words = [list(key[i:i + 4]) for i in range(0, 16, 4)]
    rcon = 1
    for i in range(4, 44):
        w = list(words[i - 1])
        if i % 4 == 0:
            w = [sbox[b] for b in w[1:] + w[:1]]
            w[0] ^= rcon
            rcon = _xtime(rcon)
        words.append([a ^ b for a, b in zip(w, words[i - 4])])
    return [[b for word in words[r * 4:r * 4 + 4] for b in word] for r in range(11)]


def decrypt_block(block: bytes, keys: list[list[int]]) -> bytes:
    """One 16-byte block through AES-128's inverse cipher (FIPS-197 §5.3)."""
    _, inverse, (m9, m11, m13, m14) = tables()
    s = [b ^ k for b, k in zip(block, keys[10])]
    for r in range(9, -1, -1):
        # InvShiftRows then InvSubBytes: byte (row, column) comes from column - row.
        s = [inverse[s[(row + 4 * ((col - row) % 4))]] for col in range(4) for row in range(4)]
        s = [b ^ k for b, k in zip(s, keys[r])]
        if r:
            mixed = []
            for c in range(0, 16, 4):
                a0, a1, a2, a3 = s[c:c + 4]
                mixed += [m14[a0] ^ m11[a1] ^ m13[a2] ^ m9[a3],
                          m9[a0] ^ m14[a1] ^ m11[a2] ^ m13[a3],
                          m13[a0] ^ m9[a1] ^ m14[a2] ^ m11[a3],
                          m11[a0] ^ m13[a1] ^ m9[a2] ^ m14[a3]]
            s = mixed
    return bytes(s)


def fold_key(key: bytes) -> bytes:
    """The 20-byte key XOR-folded to AES-128's 16 (``my_aes_create_key``)."""
    out = bytearray(16)
    for i, b in enumerate(key):
        out[i % 16] ^= b
    return bytes(out)


def decrypt_login_file(data: bytes) -> str:
    """The option-file text of a login path file's bytes; ``ValueError`` when damaged."""
    if len(data) < HEADER_LEN:
        raise ValueError("shorter than its header")
    keys = round_keys(fold_key(data[4:HEADER_LEN]))
    lines = []
    at = HEADER_LEN
    while at + 4 <= len(data):
        size = int.from_bytes(data[at:at + 4], "little", signed=True)
        at += 4
        if size <= 0 or size % 16 or size > LINE_LIMIT or at + size > len(data):
            raise ValueError(f"a line of {size} bytes at offset {at - 4}")
        plain = b"".join(decrypt_block(data[i:i + 16], keys) for i in range(at, at + size, 16))
        pad = plain[-1]
        if not 1 <= pad <= 16 or plain[-pad:] != bytes([pad]) * pad:
            raise ValueError(f"a line that does not decrypt at offset {at - 4}")
        lines.append(plain[:-pad].decode("utf-8", "replace"))
        at += size
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def read_login_file(path: Path) -> str | None:
    """The text of the login path file at ``path``, None when there is none. As MySQL
    does, a file others may read or write (or that is executable) is not used: refused
    here in one line, since a login path was asked for."""
    try:
        data = read_limited(path, LIMIT, "login path file")
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"could not read {path}: {(exc.strerror or str(exc)).lower()}"
                         ) from None
    except UnfitFile as exc:
        raise UsageError(f"could not read {path}: {exc.reason}") from None
    if info.st_mode & (stat.S_IXUSR | stat.S_IRWXG | stat.S_IRWXO):
        raise UsageError(f"{path} may be read by others ({stat.filemode(info.st_mode)}): "
                         "not used, as MySQL does not use it (chmod 600)")
    try:
        return decrypt_login_file(data)
    except ValueError as exc:
        raise UsageError(f"{path} is damaged: {exc}") from None
