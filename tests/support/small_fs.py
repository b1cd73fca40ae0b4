"""A real, small filesystem for disk-full tests: a tmpfs of a fixed size, mostly filled by a ballast
file that :meth:`SmallFilesystem.free` deletes ("the user frees space").

Mounting needs CAP_SYS_ADMIN (root in a container). Where the mount is refused, the same test
runs the CLI child under RLIMIT_FSIZE instead: every file it writes is capped, so its writes fail
with EFBIG ("File too large"), which SQLite reports as it reports a full disk; freeing space is
then running the child without the cap. Which one was used is in :attr:`SmallFilesystem.kind`.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


class SmallFilesystem:
    def __init__(self, root: Path, kind: str, limit_bytes: int) -> None:
        self.root = root
        self.kind = kind  # "tmpfs" or "rlimit"
        self.limit_bytes = limit_bytes
        self.freed = False

    @property
    def ballast(self) -> Path:
        return self.root / "ballast.bin"

    def preexec(self) -> Callable[[], None] | None:
        """For ``subprocess.Popen(preexec_fn=...)``: the file-size cap, while space is short."""
        if self.kind != "rlimit" or self.freed:
            return None
        limit = self.limit_bytes

        def cap() -> None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        return cap

    def free(self) -> None:
        """Make room: delete the ballast (tmpfs), or lift the cap (rlimit)."""
        self.ballast.unlink(missing_ok=True)
        self.freed = True

    def free_bytes(self) -> int:
        return shutil.disk_usage(self.root).free


@contextmanager
def small_filesystem(root: Path, *, size_kb: int = 16384, room_kb: int = 400) -> Iterator[SmallFilesystem]:
    """A filesystem at ``root`` with about ``room_kb`` free until :meth:`SmallFilesystem.free`."""
    root.mkdir(parents=True, exist_ok=True)
    command = ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(root)]
    if os.environ.get("NATIONBIAS_TEST_SMALL_FS") == "rlimit":  # try the fallback where mount works
        command = ["false"]
    mounted = subprocess.run(command, capture_output=True, check=False)
    if mounted.returncode != 0:  # no privilege to mount: cap file sizes instead
        yield SmallFilesystem(root, "rlimit", room_kb * 1024)
        return
    try:
        fs = SmallFilesystem(root, "tmpfs", room_kb * 1024)
        with fs.ballast.open("wb") as out:
            out.write(b"\0" * max(0, fs.free_bytes() - room_kb * 1024))
        yield fs
    finally:
        subprocess.run(["umount", "-l", str(root)], check=False)
