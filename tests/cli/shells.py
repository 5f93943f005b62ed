"""Run a document's ```sh blocks as a reader would: each in the terminal it names, foreground
blocks in one long-lived bash per terminal (so `. .venv/bin/activate` and `T=$(...)` carry over
to later blocks), blocks that keep running in a process group of their own."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

# <!-- test: terminal 2 --> or <!-- test: terminal 1, keeps running until "Ctrl-C to stop" -->
MARKER = re.compile(r'<!-- test: terminal (\d+)(?:, keeps running until "([^"]+)")? -->')
BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.DOTALL | re.MULTILINE)
DONE = "__quickstart_block_done__"


@dataclass(frozen=True)
class Block:
    terminal: int
    code: str
    ready: str | None  # a block that keeps running: the text that says it is ready

    @property
    def background(self) -> bool:
        return self.ready is not None


def sh_blocks(markdown: str) -> list[Block]:
    """Every ```sh block with the marker on the line above it (a block without one is an
    error: a guide's command the test would not run)."""
    blocks = []
    for found in BLOCK.finditer(markdown):
        before = markdown[: found.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = MARKER.fullmatch(before.strip())
        if marker is None:
            raise AssertionError(f"a ```sh block without a test marker above it:\n{found[1]}")
        blocks.append(Block(int(marker[1]), found[1], marker[2]))
    return blocks


class Shell:
    """One terminal: a bash reading blocks from a pipe; ``run`` waits for a block's end."""

    def __init__(self, env: Mapping[str, str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            ["bash", "--noprofile", "--norc"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=dict(env),
            cwd=cwd,
            text=True,
            start_new_session=True,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._send("set -e -o pipefail\n")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text)
        self.process.stdin.flush()

    def run(self, code: str, timeout: float) -> str:
        """The block's output; an AssertionError if a command fails (set -e ends the shell)."""
        self._send(f"{code}\necho {DONE}\n")
        out: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(
                    f"block still running after {timeout}s:\n{code}\n{''.join(out)}"
                ) from None
            if line is None:
                code_ = self.process.wait(10)
                raise AssertionError(f"block failed (exit {code_}):\n{code}\n---\n{''.join(out)}")
            if line.strip() == DONE:
                return "".join(out)
            out.append(line)

    def close(self) -> None:
        with contextlib.suppress(BrokenPipeError, OSError):
            self._send("exit\n")
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            stop_group(self.process)


def start_background(
    code: str, env: Mapping[str, str], cwd: Path, log: Path
) -> subprocess.Popen[bytes]:
    with log.open("wb") as handle:
        return subprocess.Popen(
            ["bash", "--noprofile", "--norc", "-e", "-c", code],
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
        )


def stop_group(process: subprocess.Popen[bytes] | subprocess.Popen[str], grace: float = 20) -> None:
    """SIGTERM to the process group (what Ctrl-C does to a terminal's job), then SIGKILL."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(5)


@contextlib.contextmanager
def terminals(env: Mapping[str, str], cwd: Path) -> Iterator[dict[int, Shell]]:
    """Foreground shells by terminal number, made on first use; all closed on leaving."""
    shells: dict[int, Shell] = {}

    class Lazy(dict[int, Shell]):
        def __missing__(self, key: int) -> Shell:
            shells[key] = Shell(env, cwd)
            self[key] = shells[key]
            return shells[key]

    try:
        yield Lazy()
    finally:
        for shell in shells.values():
            shell.close()
