"""Textual's terminal driver, with an input thread that sleeps while no key comes.

Textual's Linux driver reads the terminal in a thread that wakes ten times a second
whether or not a key came: to see whether the driver is stopping, and to tell a lone
Escape from the start of a key's sequence once a moment has passed. In a live view left
open for a maintenance window that is a tenth of the program's CPU on a large cluster.
This driver's thread waits for input or for the driver to stop (told through a pipe),
and wakes ten times a second only during the second after a key, while an Escape may be
waiting to be told apart. It also resumes on SIGCONT only after a suspension: a terminal
that goes away sends SIGHUP and SIGCONT, and Textual's driver would start its threads
again after the view had ended, keeping the process alive. Everything else is Textual's
driver.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import time
from codecs import getincrementaldecoder
from threading import Event

from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

SHORT_WAIT_S = 0.1
"""How often the thread looks for a pending Escape while keys come (Textual's period)."""
AFTER_INPUT_S = 1.0
"""How long after a key the thread keeps looking that often."""
READ_BYTES = 4096


class _WakingEvent(Event):
    """An event whose ``set`` also writes to a pipe a thread may be waiting on."""

    def __init__(self) -> None:
        super().__init__()
        self.wake_fd: int | None = None

    def set(self) -> None:
        """Set the event and wake the thread waiting for input."""
        super().set()
        fd = self.wake_fd
        if fd is not None:
            with contextlib.suppress(OSError):
                os.write(fd, b"\0")


class QuietLinuxDriver(LinuxDriver):
    """Textual's Linux driver whose input thread sleeps until input or a stop."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.exit_event: _WakingEvent = _WakingEvent()

    def _sigcont_application(self, *args: object) -> None:
        """Resume after a suspension (Ctrl-Z) only. The kernel also sends SIGCONT, with
        SIGHUP, to the processes of a terminal that went away: resuming then would start the
        terminal's threads again after the view has ended and keep the process alive."""
        if self._must_signal_resume:
            super()._sigcont_application(*args)

    def run_input_thread(self) -> None:
        """Read keys until the driver stops (Textual's loop, with a wait that adapts)."""
        stop = self.exit_event
        fileno = self.fileno
        wake_read, wake_write = os.pipe()
        stop.wake_fd = wake_write
        selector = selectors.SelectSelector()
        selector.register(fileno, selectors.EVENT_READ)
        selector.register(wake_read, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode
        last_input = float("-inf")

        def process(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            nonlocal last_input
            if any(key.fd == fileno for key, _ in ready):
                last_input = time.monotonic()
                try:
                    raw = os.read(fileno, READ_BYTES)
                except OSError:
                    raw = b""  # EIO: the terminal went away
                data = decode(raw, final=final)
                if data:
                    for event in parser.feed(data):
                        self.process_message(event)
                elif fileno in selector.get_map():
                    # The end of the input (a closed terminal): nothing more will come,
                    # and a readable end would wake the thread without pause.
                    selector.unregister(fileno)
            for event in parser.tick():
                self.process_message(event)

        try:
            while not stop.is_set():
                recent = time.monotonic() - last_input < AFTER_INPUT_S
                process(selector.select(SHORT_WAIT_S if recent else None))
            if fileno in selector.get_map():
                process(selector.select(SHORT_WAIT_S), final=True)
        finally:
            stop.wake_fd = None
            selector.close()
            os.close(wake_read)
            os.close(wake_write)
