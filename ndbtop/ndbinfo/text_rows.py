"""Row texts of the ``ndbinfo`` text queries split into the columns their parsers take.

A text query (:attr:`~ndbtop.ndbinfo.queries.Query.fields`) sends each row as its
columns joined by single spaces, NULL sent as an empty column; the column that may hold
a space is sent last and split off whole
(:attr:`~ndbtop.ndbinfo.queries.Query.text_field`). Each part is a ``str`` that
:func:`~ndbtop.ndbinfo.rows.to_int` and :func:`~ndbtop.ndbinfo.rows.to_text` read as
they read the typed column: the digits of an integer or of a ``DECIMAL`` sum as their
value, an empty column as NULL.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, TypeVar

from ndbtop.ndbinfo.queries import FIELD_SEPARATOR
from ndbtop.ndbinfo.rows import to_int

_WHOLE_NUMBERS = re.compile(f"-?[0-9]{{1,19}}(?:{re.escape(FIELD_SEPARATOR)}-?[0-9]{{1,19}})*",
                            re.ASCII)
"""A row of whole numbers each of 64 bits at most (19 digits), nothing else."""

T = TypeVar("T")


def split_fields(
    texts: Sequence[str], fields: int, text_field: int | None = None
) -> list[list[str]]:
    """Each row text's ``fields`` columns, in the parser's order: the last column moved to
    ``text_field`` when given. A row with fewer columns is kept short, for the parser to
    leave out as it leaves out a short typed row."""
    cuts = fields - 1
    rows = [text.split(FIELD_SEPARATOR, cuts) for text in texts]
    if text_field is not None:
        for parts in rows:
            if len(parts) == fields:
                parts.insert(text_field, parts.pop())
    return rows


def parse_numbers(texts: Sequence[str], make: Callable[..., T]) -> tuple[T, ...]:
    """Row texts of whole numbers (``node_id`` then sums), one of ``make``'s fields each,
    as the ``parse_*`` function of ``make`` gives them from :func:`split_fields`: a row
    with too few columns left out, the rest sorted by their first two values.

    A row of ASCII whole numbers of at most 19 digits is read with ``int()``, which gives
    what :func:`~ndbtop.ndbinfo.rows.to_int` gives for such a row; a row with any other
    part (an empty one for NULL) is read part by part with ``to_int``.
    """
    names = [f.name for f in dataclasses.fields(make)]  # type: ignore[arg-type]
    fields = len(names)
    cuts = fields - 1
    out: list[Any] = []
    for text in texts:
        parts = text.split(FIELD_SEPARATOR, cuts)
        if len(parts) < fields:
            continue
        if _WHOLE_NUMBERS.fullmatch(text) is not None:
            try:
                out.append(make(*map(int, parts)))
                continue
            except ValueError:  # more parts than fields: the last holds a separator
                pass
        out.append(make(*map(to_int, parts)))
    out.sort(key=attrgetter(*names[:2]))
    return tuple(out)
