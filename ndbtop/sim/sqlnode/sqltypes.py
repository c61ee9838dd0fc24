"""MySQL types of result columns: parsing schema types, wire metadata, value text.

A result column's type decides what a client library hands back: pymysql
returns ``int`` for integer types, :class:`~decimal.Decimal` for ``DECIMAL``
and ``str`` for character types. The simulator therefore reports the types a
real server would, and formats values to match them.
"""

from __future__ import annotations

import decimal
import enum
import re
from dataclasses import dataclass

from mysql_mimic.types import ColumnDefinition, ColumnType

from ndbtop.compat import SLOTS

MAX_DECIMAL_PRECISION = 65
MAX_DECIMAL_SCALE = 30
DIV_PRECISION_INCREMENT = 4
"""MySQL's default ``div_precision_increment``: digits a division adds to the scale."""

_FLAG_NOT_NULL = int(ColumnDefinition.NOT_NULL_FLAG)
_FLAG_UNSIGNED = int(ColumnDefinition.UNSIGNED_FLAG)
_FLAG_BINARY = int(ColumnDefinition.BINARY_FLAG)
_FLAG_BLOB = int(ColumnDefinition.BLOB_FLAG)
_FLAG_ENUM = int(ColumnDefinition.ENUM_FLAG)
_FLAG_SET = int(ColumnDefinition.SET_FLAG)
_FLAG_NUM = int(ColumnDefinition.NUM_FLAG)

_UTF8MB4_MAX_BYTES = 4


class Kind(enum.Enum):
    """The families of MySQL result types the simulator distinguishes."""

    INT = "int"
    DECIMAL = "decimal"
    DOUBLE = "double"
    STRING = "string"
    NULL = "null"


@dataclass(frozen=True, **SLOTS)
class SqlType:
    """A MySQL column type, reduced to what a client can observe.

    ``wide`` separates ``BIGINT`` (64-bit) from ``INT``; ``precision`` and
    ``scale`` describe a ``DECIMAL``; ``length`` is the character length of a
    string; ``flavour`` is ``"enum"``, ``"set"`` or ``"text"`` for those string
    types and empty otherwise.
    """

    kind: Kind
    unsigned: bool = False
    wide: bool = True
    precision: int = 0
    scale: int = 0
    length: int = 0
    flavour: str = ""
    nullable: bool = True

    @property
    def is_numeric(self) -> bool:
        """True for integer, decimal and floating point types."""
        return self.kind in (Kind.INT, Kind.DECIMAL, Kind.DOUBLE)

    @property
    def integer_digits(self) -> int:
        """Digits left of the decimal point this type can hold."""
        if self.kind is Kind.INT:
            return 20 if self.wide else 10
        if self.kind is Kind.DECIMAL:
            return self.precision - self.scale
        return 0


INT_UNSIGNED = SqlType(Kind.INT, unsigned=True, wide=False)
BIGINT = SqlType(Kind.INT)
BIGINT_UNSIGNED = SqlType(Kind.INT, unsigned=True)
DOUBLE = SqlType(Kind.DOUBLE)
NULL = SqlType(Kind.NULL)
BOOLEAN_RESULT = SqlType(Kind.INT, length=1)
"""What comparisons and logical operators return: a BIGINT holding 0 or 1."""


def string(length: int, flavour: str = "") -> SqlType:
    """A character type of ``length`` characters."""
    return SqlType(Kind.STRING, length=length, flavour=flavour)


def decimal_type(precision: int, scale: int, unsigned: bool = False) -> SqlType:
    """A ``DECIMAL(precision, scale)``, clamped to MySQL's limits."""
    scale = max(0, min(scale, MAX_DECIMAL_SCALE))
    precision = max(scale, min(max(precision, 1), MAX_DECIMAL_PRECISION))
    return SqlType(Kind.DECIMAL, unsigned=unsigned, precision=precision, scale=scale)


_PARAMS = re.compile(r"^(?P<base>[a-z]+)\s*(?:\((?P<args>[^)]*)\))?\s*(?P<unsigned>unsigned)?$")


def parse_column_type(text: str) -> SqlType:
    """The :class:`SqlType` of a type as written in ``ndbinfo-schema.json``.

    Raises ``ValueError`` for a type the simulator does not know, so a schema
    change cannot silently turn into wrongly typed results.
    """
    lowered = text.strip().lower()
    if lowered.startswith(("enum(", "set(")):
        flavour = lowered.split("(", 1)[0]
        members = re.findall(r"'((?:[^']|'')*)'", text)
        return string(max((len(m) for m in members), default=0), flavour)
    match = _PARAMS.match(lowered)
    if match is None:
        raise ValueError(f"unknown column type: {text!r}")
    base, args, unsigned = match["base"], match["args"], bool(match["unsigned"])
    if base == "int":
        return SqlType(Kind.INT, unsigned=unsigned, wide=False)
    if base == "bigint":
        return SqlType(Kind.INT, unsigned=unsigned)
    if base == "decimal":
        if args is None:
            return decimal_type(MAX_DECIMAL_PRECISION, 0, unsigned)
        numbers = [int(a) for a in args.split(",")]
        return decimal_type(numbers[0], numbers[1] if len(numbers) > 1 else 0, unsigned)
    if base in ("varchar", "char"):
        return string(int(args or "1"))
    if base == "text":
        return string(65535, "text")
    if base in ("double", "float"):
        return DOUBLE
    raise ValueError(f"unknown column type: {text!r}")


@dataclass(frozen=True, **SLOTS)
class WireColumn:
    """How a column is described in a result set's column definition packet."""

    column_type: ColumnType
    flags: int
    length: int
    decimals: int
    binary_charset: bool


def wire_column(t: SqlType) -> WireColumn:
    """The column definition a MySQL 8 server sends for a column of type ``t``."""
    not_null = 0 if t.nullable else _FLAG_NOT_NULL
    if t.kind is Kind.INT:
        flags = not_null | _FLAG_BINARY | _FLAG_NUM | (_FLAG_UNSIGNED if t.unsigned else 0)
        if t.length:
            length = t.length
        elif t.wide:
            length = 20
        else:
            length = 10
        return WireColumn(
            ColumnType.LONGLONG if t.wide else ColumnType.LONG, flags, length, 0, True
        )
    if t.kind is Kind.DECIMAL:
        flags = not_null | _FLAG_BINARY | _FLAG_NUM | (_FLAG_UNSIGNED if t.unsigned else 0)
        length = t.precision + (1 if t.scale else 0) + (0 if t.unsigned else 1)
        return WireColumn(ColumnType.NEWDECIMAL, flags, length, t.scale, True)
    if t.kind is Kind.DOUBLE:
        return WireColumn(ColumnType.DOUBLE, not_null | _FLAG_BINARY | _FLAG_NUM, 22, 31, True)
    if t.kind is Kind.NULL:
        return WireColumn(ColumnType.NULL, _FLAG_BINARY, 0, 0, True)
    length = t.length * _UTF8MB4_MAX_BYTES
    if t.flavour == "text":
        return WireColumn(ColumnType.BLOB, not_null | _FLAG_BLOB, length, 0, False)
    if t.flavour == "enum":
        return WireColumn(ColumnType.STRING, not_null | _FLAG_ENUM, length, 0, False)
    if t.flavour == "set":
        return WireColumn(ColumnType.STRING, not_null | _FLAG_SET, length, 0, False)
    return WireColumn(ColumnType.VAR_STRING, not_null, length, 0, False)


def type_of_value(value: object) -> SqlType:
    """The type to report for a computed value whose SQL type is not known."""
    if isinstance(value, int):
        return BIGINT
    if isinstance(value, float):
        return DOUBLE
    if isinstance(value, decimal.Decimal):
        exponent = value.as_tuple().exponent
        scale = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        return decimal_type(MAX_DECIMAL_PRECISION, scale)
    if value is None:
        return NULL
    return string(max(len(str(value)), 1))


_DECIMAL_CONTEXT = decimal.Context(prec=MAX_DECIMAL_PRECISION + 20)


def format_decimal(value: object, scale: int) -> str | None:
    """``value`` written as MySQL writes a ``DECIMAL`` with ``scale`` digits.

    Floats (SQLite's answer to a division) are rounded half away from zero, as
    MySQL rounds its exact results. ``None`` for a value that is not a number.
    """
    if isinstance(value, decimal.Decimal):
        number = value
    elif isinstance(value, bool):
        number = decimal.Decimal(int(value))
    elif isinstance(value, int):
        number = decimal.Decimal(value)
    elif isinstance(value, float):
        number = decimal.Decimal(repr(value))
    else:
        try:
            number = decimal.Decimal(str(value).strip())
        except decimal.InvalidOperation:
            return None
    if not number.is_finite():
        return None
    quantum = decimal.Decimal(1).scaleb(-scale)
    try:
        rounded = number.quantize(quantum, rounding=decimal.ROUND_HALF_UP, context=_DECIMAL_CONTEXT)
    except decimal.InvalidOperation:
        return None
    return format(rounded, "f")


def to_int(value: object) -> object:
    """An integer column's value as an ``int`` (SQLite may compute a float)."""
    if type(value) is int or value is None:
        return value
    if isinstance(value, float):
        return int(value) if value == value and abs(value) != float("inf") else None
    if isinstance(value, decimal.Decimal):
        return int(value)
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def to_float(value: object) -> object:
    """A floating point column's value as a ``float``."""
    if value is None or isinstance(value, float):
        return value
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def to_text(value: object) -> object:
    """A string column's value as a ``str``."""
    if value is None or isinstance(value, str):
        return value
    return str(value)
