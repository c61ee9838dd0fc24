"""What differs between the Python versions ndbtop runs on (3.9 and later).

Everything version-dependent is here, so the rest of the code reads the same on
every version and ``tests/test_python_floor.py`` can keep it so:

- :data:`SLOTS`: ``@dataclass(frozen=True, **SLOTS)`` gives slotted dataclasses
  where ``dataclass`` can make them (3.10+) and ordinary ones on 3.9;
- :func:`zip_strict`: ``zip(..., strict=True)``, which 3.9 lacks;
- :data:`TIMEOUT_ERRORS`: what ``except TimeoutError`` means from 3.11;
- :func:`type_hints`: ``typing.get_type_hints`` that also reads ``X | Y`` on 3.9;
- :func:`start_tls`: ``StreamWriter.start_tls`` (3.11+) from ``loop.start_tls`` (3.7+);
- :class:`AsyncLock` and :class:`AsyncEvent`: ``asyncio``'s, bound to the loop that runs when
  they are first waited on, as from 3.10 (3.9 binds them to the thread's loop when
  they are made, so one made in a constructor fails under ``asyncio.run`` or in a
  thread with no loop);
- :func:`toml_loads`: the standard library's ``tomllib`` (3.11+), its backport ``tomli``
  on 3.9 and 3.10 (the same code, published apart).
"""

from __future__ import annotations

import ast
import asyncio
import collections
import functools
import socket
import ssl
import sys
import types
import typing
from collections.abc import Iterable, Iterator
from typing import Any

SLOTS: dict[str, bool] = {"slots": True} if sys.version_info >= (3, 10) else {}
"""Keyword arguments that make a dataclass slotted where this Python can."""

TIMEOUT_ERRORS: tuple[type[BaseException], ...] = (
    TimeoutError, socket.timeout, asyncio.TimeoutError,
)
"""A timeout from a socket or from asyncio: the same class from 3.11, three before (a
blocking socket's ``socket.timeout`` is no ``TimeoutError`` on 3.9)."""

UNION_TYPES: tuple[Any, ...] = (typing.Union, getattr(types, "UnionType", typing.Union))
"""What ``typing.get_origin`` returns for a union, written either way."""


def _zip_strict_39(*iterables: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    try:
        lengths = {len(i) for i in iterables}  # type: ignore[arg-type]
    except TypeError:
        return _zip_checked(*iterables)
    if len(lengths) > 1:
        raise ValueError("zip_strict: arguments of unequal length")
    return zip(*iterables)


def _zip_checked(*iterables: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    sentinel = object()
    iterators = [iter(i) for i in iterables]
    if not iterators:
        return
    while True:
        items = [next(it, sentinel) for it in iterators]
        ended = [item is sentinel for item in items]
        if all(ended):
            return
        if any(ended):
            raise ValueError("zip_strict: arguments of unequal length")
        yield tuple(items)


zip_strict: typing.Callable[..., Iterator[tuple[Any, ...]]] = (
    functools.partial(zip, strict=True) if sys.version_info >= (3, 10) else _zip_strict_39
)
"""``zip`` that raises ``ValueError`` when its arguments are not of one length."""


class _UnionOfOr(ast.NodeTransformer):
    """``A | B`` in an annotation's text becomes ``Union[A, B]`` (3.9 cannot ``|`` types)."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.BitOr):
            return node
        union = ast.Name(id="__ndbtop_union__", ctx=ast.Load())
        pair = ast.Tuple(elts=[node.left, node.right], ctx=ast.Load())
        return ast.copy_location(ast.Subscript(value=union, slice=pair, ctx=ast.Load()), node)


def _evaluate(text: str, namespace: dict[str, Any]) -> Any:
    tree = _UnionOfOr().visit(ast.parse(text, mode="eval"))
    code = compile(ast.fix_missing_locations(tree), "<annotation>", "eval")
    return eval(code, {**namespace, "__ndbtop_union__": typing.Union})


def type_hints(cls: type) -> dict[str, Any]:
    """The annotations of ``cls`` and its bases, evaluated (``typing.get_type_hints``).

    On 3.9 an annotation written ``int | None`` cannot be evaluated as written (a
    postponed annotation is text); it is read as ``Optional[int]``.
    """
    if sys.version_info >= (3, 10):
        return typing.get_type_hints(cls)
    hints: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        module = sys.modules.get(base.__module__)
        namespace = {**(vars(module) if module else {}), **vars(base)}
        for name, value in vars(base).get("__annotations__", {}).items():
            if isinstance(value, typing.ForwardRef):
                # A NamedTuple's postponed annotations arrive as forward references.
                value = value.__forward_arg__
            hints[name] = _evaluate(value, namespace) if isinstance(value, str) else value
    return hints


async def start_tls(
    writer: asyncio.StreamWriter, context: ssl.SSLContext,
    ssl_handshake_timeout: float | None = None,
) -> None:
    """Run the TLS handshake on the socket under ``writer`` (either side), in place:
    ``StreamWriter.start_tls`` where it exists (3.11+), else :func:`start_tls_by_loop`."""
    if hasattr(writer, "start_tls"):
        await writer.start_tls(context, ssl_handshake_timeout=ssl_handshake_timeout)
    else:
        await start_tls_by_loop(writer, context, ssl_handshake_timeout)


async def start_tls_by_loop(
    writer: asyncio.StreamWriter, context: ssl.SSLContext,
    ssl_handshake_timeout: float | None = None,
) -> None:
    """``StreamWriter.start_tls`` as 3.11 does it, for 3.9 and 3.10: ``loop.start_tls``
    (3.7+) on the transport, then the writer and its protocol moved onto the TLS
    transport (attributes that 3.9 to 3.13 all have, and 3.9 and 3.10 no longer change)."""
    protocol: Any = writer._protocol  # type: ignore[attr-defined]
    await writer.drain()
    transport = await asyncio.get_running_loop().start_tls(
        writer.transport, protocol, context,
        server_side=protocol._client_connected_cb is not None,
        ssl_handshake_timeout=ssl_handshake_timeout,
    )
    writer._transport = transport  # type: ignore[attr-defined]
    protocol._stream_writer = writer
    protocol._transport = transport
    protocol._over_ssl = True


if sys.version_info >= (3, 10):
    AsyncLock = asyncio.Lock
    AsyncEvent = asyncio.Event
else:

    class _RunningLoop:
        """The loop of a 3.9 primitive: the one running at its first wait."""

        _bound: asyncio.AbstractEventLoop | None = None

        @property
        def _loop(self) -> asyncio.AbstractEventLoop:
            if self._bound is None:
                self._bound = asyncio.get_running_loop()
            return self._bound

    class AsyncLock(_RunningLoop, asyncio.Lock):  # type: ignore[no-redef]
        """``asyncio.Lock`` that may be made outside a running loop."""

        def __init__(self) -> None:
            self._waiters = None
            self._locked = False

    class AsyncEvent(_RunningLoop, asyncio.Event):  # type: ignore[no-redef]
        """``asyncio.Event`` that may be made outside a running loop."""

        def __init__(self) -> None:
            self._waiters: collections.deque[asyncio.Future[bool]] = collections.deque()
            self._value = False


def toml_loads(text: str) -> dict[str, Any]:
    """Parse TOML text: ``tomllib`` from 3.11, the ``tomli`` backport before (installed
    on those versions only). A syntax error raises ``ValueError`` (``TOMLDecodeError``),
    its message ending in ``(at line N, column M)``."""
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib.loads(text)
    import tomli

    return tomli.loads(text)
