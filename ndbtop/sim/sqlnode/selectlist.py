"""The text of each item of a statement's select list, as the client typed it.

MySQL names an unaliased result column after the expression's own text
(``count(*)``, ``100*used/total``), so the names cannot be regenerated from a
parsed tree, which would normalise case and spacing.
"""

from __future__ import annotations

import functools

from sqlglot.dialects.mysql import MySQL
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

_OPEN = {TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE}
_CLOSE = {TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE}
_MODIFIERS = {TokenType.DISTINCT, TokenType.ALL}
_END = {
    TokenType.FROM,
    TokenType.INTO,
    TokenType.WHERE,
    TokenType.GROUP_BY,
    TokenType.HAVING,
    TokenType.ORDER_BY,
    TokenType.LIMIT,
    TokenType.UNION,
    TokenType.EXCEPT,
    TokenType.INTERSECT,
    TokenType.WINDOW,
    TokenType.FOR,
    TokenType.SEMICOLON,
}

_TOKENIZER_DIALECT = MySQL()


@functools.lru_cache(maxsize=256)
def select_item_texts(sql: str) -> tuple[str, ...] | None:
    """The select-list items of the first top-level SELECT of ``sql``, verbatim.

    ``None`` when ``sql`` holds more than one statement or no SELECT, or cannot
    be tokenized; callers then fall back to generated names.
    """
    try:
        tokens = _TOKENIZER_DIALECT.tokenize(sql)
    except TokenError:
        return None
    if _statement_count(tokens) != 1:
        return None
    depth = 0
    start = None
    for index, token in enumerate(tokens):
        if token.token_type in _OPEN:
            depth += 1
        elif token.token_type in _CLOSE:
            depth -= 1
        elif token.token_type == TokenType.SELECT and depth == 0:
            start = index + 1
            break
    if start is None:
        return None
    while start < len(tokens) and tokens[start].token_type in _MODIFIERS:
        start += 1

    items: list[list[Token]] = [[]]
    depth = 0
    for token in tokens[start:]:
        kind = token.token_type
        if depth == 0 and kind in _END:
            break
        if kind in _OPEN:
            depth += 1
        elif kind in _CLOSE:
            depth -= 1
        if depth == 0 and kind == TokenType.COMMA:
            items.append([])
            continue
        items[-1].append(token)
    if any(not item for item in items):
        return None
    return tuple(sql[item[0].start : item[-1].end + 1] for item in items)


def _statement_count(tokens: list[Token]) -> int:
    count = 0
    pending = False
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            if pending:
                count += 1
            pending = False
        else:
            pending = True
    return count + (1 if pending else 0)
