"""Numbers read from outside: one parser for every source.

Servers, hosts, processes and files are untrusted, and Python's own readers accept
more than they should: ``isdigit`` takes ``²``, which ``int()`` then refuses;
``int()`` takes ``٣``, ``1_000`` and ``+7``, spends quadratic time on thousands of
digits and refuses more than 4,300 with an error; ``float()`` takes ``nan``, ``inf``
and ``1e308``. Every
number ndbtop reads from a server reply, a ``/proc`` file, a process's arguments, an
error log, an ndbinfo row or a recording goes through this module instead:

- integers are ASCII digits with an optional ``-``, no more of them than the largest
  number of the range the caller states has (``0`` to ``2**64 - 1``, 20 digits, unless
  stated), within that range;
- decimals are ASCII digits with an optional fraction and exponent, and the float is
  finite and within the stated range (``±``:data:`MAX_FLOAT` unless stated).

Anything else is a :class:`NumberError` (a ``ValueError``) whose text says why in one
line, or ``None`` from the ``*_or_none`` forms.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DIGITS = 20
"""Digits an integer may have: enough for any 64-bit value, few enough to parse in
constant time."""
MAX_FLOAT = 1e15
"""The largest magnitude of a float read from outside unless a caller states its own:
beyond every figure ndbtop shows (seconds since 1970 are about 1.8e9, rates of bytes
per second below 1e12), and small enough that a time or a sum made from it stays
finite."""
U64 = (1 << 64) - 1
MAX_WHOLE = 10**41 - 1
"""The largest magnitude of a whole number read from outside: a ``SUM()`` of a 64-bit
column (a ``DECIMAL(41,0)``) fits, and it converts to a finite float."""
MAX_TIME = 1e11
"""The latest time read from outside, in seconds since 1970 (the year 5138): a wall time
or a monotonic clock is between 0 and this, and shows as a date."""

_INT = re.compile("-?[0-9]+", re.ASCII)
_DIGITS = re.compile("[0-9]+", re.ASCII)
_DECIMAL = re.compile(
    f"-?[0-9]{{1,{MAX_DIGITS}}}(?:\\.[0-9]{{0,{MAX_DIGITS}}})?(?:[eE][-+]?[0-9]{{1,3}})?", re.ASCII)
_SHOWN = 24


class NumberError(ValueError):
    """A number from outside that ndbtop does not take, with the reason in one line."""


def _shown(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "…")


def is_digits(text: str, max_digits: int = MAX_DIGITS) -> bool:
    """Whether ``text`` is one to ``max_digits`` ASCII digits, nothing else (where
    ``isdigit`` would also take ``²`` or ``٣``)."""
    return 0 < len(text) <= max_digits and _DIGITS.fullmatch(text) is not None


def parse_int(text: str, low: int = 0, high: int = U64, what: str = "a number") -> int:
    """``text`` (blanks around it ignored) as an integer in ``low..high``.

    Raises :class:`NumberError` for anything that is not ASCII digits with an optional
    ``-``, longer than the range's bounds, or out of the range.
    """
    t = text.strip()
    if len(t) > max(len(str(low)), len(str(high))) or not _INT.fullmatch(t):
        raise NumberError(f"{what} is not a whole number: {_shown(t)}")
    value = int(t)
    if not low <= value <= high:
        raise NumberError(f"{what} is out of range ({low} to {high}): {_shown(t)}")
    return value


def int_or_none(text: str, low: int = 0, high: int = U64) -> int | None:
    """:func:`parse_int`, or None where it would raise."""
    try:
        return parse_int(text, low, high)
    except NumberError:
        return None


def finite(value: float, low: float = -MAX_FLOAT, high: float = MAX_FLOAT,
           what: str = "a number") -> float:
    """``value`` if it is finite and in ``low..high``; raises :class:`NumberError`."""
    if not math.isfinite(value):
        raise NumberError(f"{what} is not finite: {value}")
    if not low <= value <= high:
        raise NumberError(f"{what} is out of range ({low:g} to {high:g}): {value:g}")
    return value


def json_number(value: object, low: float = -MAX_FLOAT, high: float = MAX_FLOAT,
                what: str = "a number") -> float:
    """A number decoded from JSON (an int or a float, not a bool), finite and in
    ``low..high``; raises :class:`NumberError`."""
    if type(value) is int:
        if not low <= value <= high:
            raise NumberError(f"{what} is out of range ({low:g} to {high:g})")
        return float(value)
    if type(value) is not float:
        raise NumberError(f"{what} holds {type(value).__name__}")
    return finite(value, low, high, what)


def parse_float(text: str, low: float = -MAX_FLOAT, high: float = MAX_FLOAT,
                what: str = "a number") -> float:
    """``text`` (blanks around it ignored) as a finite float in ``low..high``.

    Only ASCII decimal notation (``12``, ``-0.5``, ``1.5e3``) is taken: never ``nan``,
    ``inf``, underscores or other scripts' digits.
    """
    t = text.strip()
    if not _DECIMAL.fullmatch(t):
        raise NumberError(f"{what} is not a decimal number: {_shown(t)}")
    return finite(float(t), low, high, what)


def float_or_none(text: str, low: float = -MAX_FLOAT, high: float = MAX_FLOAT) -> float | None:
    """:func:`parse_float`, or None where it would raise."""
    try:
        return parse_float(text, low, high)
    except NumberError:
        return None


def finite_json(value: Any) -> tuple[Any, dict[str, str]]:
    """``value`` (made of JSON's types) with every float that is not finite replaced by
    None, and, per replaced value, where it was (``nodes[2].uptime_s``) and what it was
    (``nan``): JSON has no NaN or Infinity."""
    reasons: dict[str, str] = {}

    def walk(v: Any, at: str) -> Any:
        if type(v) is float:
            if math.isfinite(v):
                return v
            reasons[at or "."] = repr(v)
            return None
        if isinstance(v, dict):
            return {k: walk(x, f"{at}.{k}" if at else str(k)) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [walk(x, f"{at}[{i}]") for i, x in enumerate(v)]
        return v

    return walk(value, ""), reasons


def dumps(value: Any, **kwargs: Any) -> str:
    """``value`` as JSON, with ``allow_nan=False``: a float that is not finite is written
    as null, and when ``value`` is an object, ``not_finite`` says where each was and what
    it was (:func:`finite_json`)."""
    try:
        return json.dumps(value, allow_nan=False, **kwargs)
    except ValueError:
        pass
    value, reasons = finite_json(value)
    if isinstance(value, dict):
        value = {**value, "not_finite": reasons}
    return json.dumps(value, allow_nan=False, **kwargs)
