"""MySQL's type rules for expressions in a SELECT list.

The rules are MySQL's, not SQLite's: ``SUM`` of an integer column is a
``DECIMAL``, ``/`` gives a ``DECIMAL`` whose scale grows by
``div_precision_increment``, comparisons give a ``BIGINT`` 0 or 1, ``MAX`` keeps
its argument's type, and so on. A type that cannot be worked out is ``None``;
the caller then falls back to the Python type of the computed values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar

from sqlglot import exp

from ndbtop.sim.sqlnode.sqltypes import (
    BIGINT,
    BIGINT_UNSIGNED,
    BOOLEAN_RESULT,
    DIV_PRECISION_INCREMENT,
    DOUBLE,
    MAX_DECIMAL_PRECISION,
    NULL,
    Kind,
    SqlType,
    decimal_type,
    string,
)

GROUP_CONCAT_MAX_LEN_DEFAULT = 1024
"""MySQL's default ``group_concat_max_len``."""
_GROUP_CONCAT_BLOB_ABOVE = 512
"""A ``GROUP_CONCAT`` is a TEXT column when ``group_concat_max_len`` is above this, else a
VARCHAR of that length."""
SESSION_GROUP_CONCAT_MAX_LEN: ContextVar[int] = ContextVar(
    "group_concat_max_len", default=GROUP_CONCAT_MAX_LEN_DEFAULT
)
"""The session's ``group_concat_max_len`` while a query is described."""


def expression_type(
    e: exp.Expression,
    column_type: Callable[[exp.Column], SqlType | None],
    subquery_type: Callable[[exp.Expression], SqlType | None],
) -> SqlType | None:
    """The MySQL type of expression ``e``, or None when it cannot be worked out.

    ``column_type`` gives a column reference's type in the query's scope, and
    ``subquery_type`` the type of a scalar subquery's (first) column.
    """
    def t(x: exp.Expression | None) -> SqlType | None:
        return None if x is None else expression_type(x, column_type, subquery_type)

    if isinstance(e, (exp.Alias, exp.Paren)):
        return t(e.this)
    if isinstance(e, exp.Column):
        return None if isinstance(e.this, exp.Star) else column_type(e)
    if isinstance(e, exp.Literal):
        return _literal_type(e)
    if isinstance(e, exp.Null):
        return NULL
    if isinstance(e, exp.Boolean):
        return BOOLEAN_RESULT
    if isinstance(e, exp.Subquery):
        return subquery_type(e.this)
    if isinstance(e, (exp.Predicate, exp.Connector, exp.Not, exp.Xor)):
        return BOOLEAN_RESULT
    if isinstance(e, exp.Neg):
        inner = t(e.this)
        if inner is None or inner.kind is Kind.STRING:
            return DOUBLE if inner is not None else None
        if inner.kind is Kind.INT:
            return BIGINT
        return SqlType(inner.kind, precision=inner.precision, scale=inner.scale)
    if isinstance(e, (exp.Add, exp.Sub, exp.Mul)):
        return _arithmetic(e, t(e.this), t(e.expression))
    if isinstance(e, exp.Div):
        return _division(t(e.this), t(e.expression))
    if isinstance(e, exp.IntDiv):
        a, b = t(e.this), t(e.expression)
        unsigned = bool(a and a.unsigned) or bool(b and b.unsigned)
        return BIGINT_UNSIGNED if unsigned else BIGINT
    if isinstance(e, exp.Mod):
        return _modulo(t(e.this), t(e.expression))
    if isinstance(
        e,
        (
            exp.BitwiseAnd,
            exp.BitwiseOr,
            exp.BitwiseXor,
            exp.BitwiseLeftShift,
            exp.BitwiseRightShift,
            exp.BitwiseNot,
        ),
    ):
        return BIGINT_UNSIGNED
    if isinstance(e, exp.AggFunc):
        return _aggregate(e, t)
    if isinstance(e, (exp.If, exp.Case, exp.Coalesce, exp.Greatest, exp.Least)):
        return merge_types([t(b) for b in _branches(e)])
    if isinstance(e, exp.Nullif):
        return t(e.this)
    if isinstance(e, exp.Round):
        return _round(t(e.this), e.args.get("decimals"))
    if isinstance(e, exp.Trunc):
        return _round(t(e.this), e.args.get("decimals"))
    if isinstance(e, (exp.Floor, exp.Ceil)):
        inner = t(e.this)
        if inner is None:
            return None
        if inner.kind is Kind.DECIMAL:
            return BIGINT
        return inner if inner.kind is Kind.INT else DOUBLE
    if isinstance(e, exp.Abs):
        return t(e.this)
    if isinstance(e, exp.Cast):
        return _cast_type(e.to)
    if isinstance(e, (exp.Sqrt, exp.Pow, exp.Ln, exp.Log, exp.Exp)):
        return DOUBLE
    if isinstance(e, (exp.Length, exp.StrPosition)):
        return BIGINT
    if isinstance(
        e,
        (
            exp.Concat,
            exp.ConcatWs,
            exp.DPipe,
            exp.Upper,
            exp.Lower,
            exp.Substring,
            exp.Trim,
            exp.Replace,
            exp.Left,
            exp.Right,
            exp.Pad,
            exp.Repeat,
            exp.Hex,
        ),
    ):
        return string(_string_length(e))
    return None


def _branches(e: exp.Expression) -> list[exp.Expression]:
    if isinstance(e, exp.If):
        return [x for x in (e.args.get("true"), e.args.get("false")) if x is not None] or [
            exp.Null()
        ]
    if isinstance(e, exp.Case):
        values = [w.args["true"] for w in e.args.get("ifs") or ()]
        default = e.args.get("default")
        values.append(default if default is not None else exp.Null())
        return values
    return [e.this, *e.expressions]


def _string_length(e: exp.Expression) -> int:
    total = 0
    for child in e.iter_expressions():
        if isinstance(child, exp.Literal) and child.is_string:
            total += len(child.this)
        else:
            total += 512
    return max(total, 1)


def _literal_type(e: exp.Literal) -> SqlType:
    text = e.this
    if e.is_string:
        return string(max(len(text), 1))
    lowered = text.lower()
    if "e" in lowered:
        return DOUBLE
    if "." in text:
        digits = text.replace(".", "").lstrip("-").lstrip("0") or "0"
        scale = len(text.split(".", 1)[1])
        return decimal_type(max(len(digits), scale), scale)
    value = int(text)
    if value > (1 << 63) - 1:
        return BIGINT_UNSIGNED if value < (1 << 64) else decimal_type(len(text), 0)
    return BIGINT


def _as_decimal(a: SqlType) -> SqlType:
    if a.kind is Kind.DECIMAL:
        return a
    return decimal_type(a.integer_digits, 0, a.unsigned)


def _arithmetic(e: exp.Expression, a: SqlType | None, b: SqlType | None) -> SqlType | None:
    if a is None or b is None:
        return None
    if a.kind is Kind.NULL:
        return b if b.kind is not Kind.STRING else DOUBLE
    if b.kind is Kind.NULL:
        return a if a.kind is not Kind.STRING else DOUBLE
    if Kind.STRING in (a.kind, b.kind) or Kind.DOUBLE in (a.kind, b.kind):
        return DOUBLE
    if Kind.DECIMAL in (a.kind, b.kind):
        da, db = _as_decimal(a), _as_decimal(b)
        if isinstance(e, exp.Mul):
            return decimal_type(da.precision + db.precision, da.scale + db.scale)
        scale = max(da.scale, db.scale)
        digits = max(da.integer_digits, db.integer_digits) + 1
        return decimal_type(digits + scale, scale)
    return BIGINT_UNSIGNED if (a.unsigned or b.unsigned) else BIGINT


def _division(a: SqlType | None, b: SqlType | None) -> SqlType | None:
    if a is None or b is None:
        return None
    if Kind.NULL in (a.kind, b.kind):
        return NULL if a.kind is Kind.NULL and b.kind is Kind.NULL else _division_null(a, b)
    if Kind.STRING in (a.kind, b.kind) or Kind.DOUBLE in (a.kind, b.kind):
        return DOUBLE
    da, db = _as_decimal(a), _as_decimal(b)
    scale = da.scale + DIV_PRECISION_INCREMENT
    return decimal_type(da.integer_digits + db.scale + scale, scale)


def _division_null(a: SqlType, b: SqlType) -> SqlType:
    other = b if a.kind is Kind.NULL else a
    if other.kind in (Kind.STRING, Kind.DOUBLE):
        return DOUBLE
    return decimal_type(_as_decimal(other).precision + DIV_PRECISION_INCREMENT, 4)


def _modulo(a: SqlType | None, b: SqlType | None) -> SqlType | None:
    if a is None or b is None:
        return None
    if Kind.STRING in (a.kind, b.kind) or Kind.DOUBLE in (a.kind, b.kind):
        return DOUBLE
    if Kind.DECIMAL in (a.kind, b.kind):
        da, db = _as_decimal(a), _as_decimal(b)
        scale = max(da.scale, db.scale)
        return decimal_type(max(da.integer_digits, db.integer_digits) + scale, scale)
    return BIGINT_UNSIGNED if a.unsigned else BIGINT


def _aggregate(
    e: exp.Expression, t: Callable[[exp.Expression | None], SqlType | None]
) -> SqlType | None:
    if isinstance(e, exp.Count):
        return SqlType(Kind.INT, nullable=False)
    inner_expr = e.this
    if isinstance(inner_expr, exp.Distinct):
        inner_expr = inner_expr.expressions[0] if inner_expr.expressions else None
    inner = t(inner_expr)
    if isinstance(e, (exp.Max, exp.Min)):
        return inner
    if isinstance(e, exp.GroupConcat):
        length = SESSION_GROUP_CONCAT_MAX_LEN.get()
        return string(length, "text" if length > _GROUP_CONCAT_BLOB_ABOVE else "")
    if inner is None:
        return None
    if isinstance(e, exp.Sum):
        if inner.kind in (Kind.INT, Kind.DECIMAL):
            d = _as_decimal(inner)
            return decimal_type(min(d.precision + 22, MAX_DECIMAL_PRECISION), d.scale)
        return DOUBLE
    if isinstance(e, exp.Avg):
        if inner.kind in (Kind.INT, Kind.DECIMAL):
            d = _as_decimal(inner)
            scale = d.scale + DIV_PRECISION_INCREMENT
            return decimal_type(d.precision + DIV_PRECISION_INCREMENT, scale)
        return DOUBLE
    if isinstance(e, (exp.Stddev, exp.StddevPop, exp.StddevSamp, exp.Variance, exp.VariancePop)):
        return DOUBLE
    return None


def _round(inner: SqlType | None, decimals: exp.Expression | None) -> SqlType | None:
    if inner is None:
        return None
    if inner.kind is Kind.INT:
        return BIGINT_UNSIGNED if inner.unsigned else BIGINT
    if inner.kind is Kind.DECIMAL:
        scale = 0
        if isinstance(decimals, exp.Literal) and not decimals.is_string:
            scale = max(0, int(float(decimals.this)))
        elif decimals is not None:
            scale = inner.scale
        return decimal_type(inner.integer_digits + scale, min(scale, inner.scale + 30))
    return DOUBLE


def _cast_type(to: exp.DataType) -> SqlType | None:
    kind = to.this
    types = exp.DataType.Type
    if kind in (types.UBIGINT, types.UINT):
        return BIGINT_UNSIGNED
    if kind in (types.BIGINT, types.INT, types.SMALLINT, types.TINYINT, types.MEDIUMINT):
        return BIGINT
    if kind == types.DECIMAL:
        params = [p.this for p in to.expressions if isinstance(p.this, exp.Literal)]
        precision = int(params[0].this) if params else 10
        scale = int(params[1].this) if len(params) > 1 else 0
        return decimal_type(precision, scale)
    if kind in (types.DOUBLE, types.FLOAT):
        return DOUBLE
    if kind in (types.CHAR, types.VARCHAR, types.TEXT, types.NCHAR, types.NVARCHAR):
        return string(512)
    return None


def merge_types(types: Sequence[SqlType | None]) -> SqlType | None:
    """The type MySQL gives a column fed by several expressions (CASE, UNION, ...)."""
    if any(t is None for t in types):
        return None
    known = [t for t in types if t is not None and t.kind is not Kind.NULL]
    if not known:
        return NULL
    kinds = {t.kind for t in known}
    if Kind.STRING in kinds:
        return string(max(t.length if t.kind is Kind.STRING else 21 for t in known))
    if Kind.DOUBLE in kinds:
        return DOUBLE
    if Kind.DECIMAL in kinds:
        decimals = [_as_decimal(t) for t in known]
        scale = max(d.scale for d in decimals)
        digits = max(d.integer_digits for d in decimals)
        return decimal_type(digits + scale, scale, all(d.unsigned for d in decimals))
    unsigned = all(t.unsigned for t in known)
    wide = any(t.wide for t in known)
    return SqlType(Kind.INT, unsigned=unsigned, wide=wide)
