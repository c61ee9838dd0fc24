"""A stand-in data node process for the SSH tests: real /proc entries, nothing else.

``standin.py NODE_ID DATADIR [--angel]`` names itself ``ndbmtd`` and starts two threads
that burn a little CPU, each named ``ndbmtd`` as every thread of a real ndbmtd is (it never
names its threads: server-rules.md §6), so they are told apart by thread id only. Once they
run it prints ``ok`` and their thread ids. With ``--angel`` it forks a child with
``--allocated-nodeid`` and ``--angel-pid``, as the real angel does, and only waits for it
(the child reads stdin). On stdin, ``redo P F`` opens
``ndb_<id>_fs/D<8+P>/DBLQH/S<F>.FragLog`` under DATADIR (closing the part's previous file),
writes 1 MiB to it and fsyncs;
each command is answered by ``ok`` on stdout.
"""

from __future__ import annotations

import os
import sys
import threading

node_id, datadir = int(sys.argv[1]), sys.argv[2]
angel = "--angel" in sys.argv[3:]


def name(text: str, tid: int | None = None) -> None:
    path = f"/proc/self/task/{tid}/comm" if tid else "/proc/self/comm"
    with open(path, "w") as f:
        f.write(text)


name("ndbmtd")
if angel:
    child = os.fork()
    if child == 0:
        args = [sys.executable, os.path.abspath(__file__), str(node_id), datadir,
                f"--allocated-nodeid={node_id}", f"--angel-pid={os.getppid()}"]
        os.execv(sys.executable, args)
    os.waitpid(child, 0)
    sys.exit(0)


tids: list[int] = []
running = threading.Barrier(3)


def burn() -> None:
    tid = threading.get_native_id()
    name("ndbmtd", tid)  # a thread library may have named it: ndbmtd's are not
    tids.append(tid)
    running.wait()
    x = 0
    while True:
        for _ in range(20000):
            x += 1
        threading.Event().wait(0.02)


for _ in range(2):
    threading.Thread(target=burn, daemon=True).start()
running.wait()
open_files: dict[int, object] = {}
print("ok", *tids, flush=True)
for line in sys.stdin:
    words = line.split()
    if len(words) == 3 and words[0] == "redo":
        part, file_no = int(words[1]), int(words[2])
        d = os.path.join(datadir, f"ndb_{node_id}_fs", f"D{8 + part}", "DBLQH")
        os.makedirs(d, exist_ok=True)
        old = open_files.pop(part, None)
        if old is not None:
            old.close()
        f = open(os.path.join(d, f"S{file_no}.FragLog"), "wb")  # noqa: SIM115 - kept open
        f.write(b"\1" * (1 << 20))
        f.flush()
        os.fsync(f.fileno())
        open_files[part] = f
    print("ok", flush=True)
