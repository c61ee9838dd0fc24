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

from collections.abc import Sequence

from ndbtop.ndbinfo.queries import FIELD_SEPARATOR


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
