"""Questions on the terminal that never hold up Ctrl-C.

The answer is read by the event loop when the terminal has a line for it, not by a
thread blocked in ``input()``: cancelling the question (Ctrl-C) ends it at once, and
nothing is left reading the terminal afterwards.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TextIO


async def ask(question: str, choices: str, stream: TextIO | None = None) -> str:
    """The first letter of the answer if it is one of ``choices``, else ``""``.

    Without a terminal on stdin nothing is asked and the answer is ``""``. The question
    goes to ``stream`` (stdout unless given: stderr keeps a JSON stdout clean).
    """
    if not sys.stdin.isatty():
        return ""
    stream = stream or sys.stdout
    stream.write(question)
    stream.flush()
    line = await read_line(sys.stdin.fileno())
    answer = line.strip().lower()[:1]
    return answer if answer in choices else ""


async def ask_phrase(question: str, stream: TextIO | None = None) -> str:
    """The whole answer, stripped: a phrase typed to confirm (``""`` without a terminal),
    asked on ``stream`` (stdout unless given)."""
    if not sys.stdin.isatty():
        return ""
    stream = stream or sys.stdout
    stream.write(question)
    stream.flush()
    return (await read_line(sys.stdin.fileno())).strip()


async def read_line(fd: int) -> str:
    """One line from ``fd`` (a terminal in line mode), read when it is ready."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()
    got = bytearray()

    def readable() -> None:
        try:
            chunk = os.read(fd, 1024)
        except OSError as exc:
            if not done.done():
                done.set_exception(exc)
            return
        got.extend(chunk)
        if (not chunk or b"\n" in got) and not done.done():
            done.set_result(got.split(b"\n", 1)[0].decode(errors="replace"))

    loop.add_reader(fd, readable)
    try:
        return await done
    finally:
        loop.remove_reader(fd)
