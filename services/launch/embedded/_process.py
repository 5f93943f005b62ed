"""Process plumbing shared by the embedded servers: locks, liveness, ports, spawning."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

LOOPBACK = "127.0.0.1"
_PR_SET_PDEATHSIG = 1


class EmbeddedServerError(RuntimeError):
    """An embedded server could not be found, started, reached or stopped."""


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive inter-process lock on ``path`` (created if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def pid_alive(pid: int) -> bool:
    """True when ``pid`` names a live (not zombie) process."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no procfs: trust kill(0)
    # The state letter follows the parenthesised command name.
    state = stat.rsplit(")", 1)[-1].split()[0:1]
    return state != ["Z"]


def process_name(pid: int) -> str | None:
    """The short command name of ``pid`` (Linux), or None when unknown."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def port_answers(port: int, host: str = LOOPBACK, timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def port_is_free(port: int, host: str = LOOPBACK) -> bool:
    """True when a server could listen on host:port right now.

    SO_REUSEADDR as the servers set it: old TIME_WAIT connections do not make a port busy.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def choose_port(preferred: Sequence[int | None], host: str = LOOPBACK) -> int:
    """The first free port among ``preferred``, else one the kernel picks."""
    for port in preferred:
        if port and port_is_free(port, host):
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        picked: int = sock.getsockname()[1]
        return picked


def die_with_parent(sig: int) -> Callable[[], None]:
    """A preexec hook: ask the kernel to send ``sig`` to the child when its parent dies.

    It runs after the uid switch (a uid change clears the setting, so it must come last).
    """
    parent = os.getpid()

    def hook() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os.kill(os.getpid(), sig)

    return hook


def spawn(
    argv: Sequence[str],
    *,
    log: IO[bytes],
    user: str | None = None,
    death_signal: int = signal.SIGTERM,
    cwd: Path | None = None,
) -> subprocess.Popen[bytes]:
    """Start a server process as our child, in its own session.

    Its own session keeps a terminal's Ctrl-C away from it, so the launcher decides the order
    of shutdown. On Linux, when started from the main thread, the kernel sends
    ``death_signal`` to it if this process dies without stopping it (no orphans even after a
    SIGKILL). From another thread that hook is skipped: Linux ties it to the creating thread.
    """
    preexec: Callable[[], None] | None = None
    if threading.current_thread() is threading.main_thread() and os.uname().sysname == "Linux":
        preexec = die_with_parent(death_signal)
    kwargs: dict[str, object] = {}
    if user is not None:
        kwargs.update(user=user, group=_primary_group(user), extra_groups=[])
    try:
        return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=preexec,
            cwd=cwd,
            **kwargs,
        )
    except OSError as exc:
        raise EmbeddedServerError(f"could not start {argv[0]}: {exc}") from exc


def _primary_group(user: str) -> int:
    import pwd

    return pwd.getpwnam(user).pw_gid


def run_tool(argv: Sequence[str], *, user: str | None = None, timeout: float = 120.0) -> str:
    """Run a short-lived helper (initdb, createdb) and return its output; raise on failure."""
    kwargs: dict[str, object] = {}
    if user is not None:
        kwargs.update(user=user, group=_primary_group(user), extra_groups=[])
    try:
        done = subprocess.run(  # type: ignore[call-overload]
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=timeout,
            check=False,
            **kwargs,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EmbeddedServerError(f"{Path(argv[0]).name} failed: {exc}") from exc
    output: str = done.stdout.decode(errors="replace")
    if done.returncode != 0:
        raise EmbeddedServerError(
            f"{Path(argv[0]).name} exited with {done.returncode}:\n{output.strip()}"
        )
    return output


def wait_for(
    ready: Callable[[], bool],
    *,
    timeout: float,
    what: str,
    process: subprocess.Popen[bytes] | None = None,
    log_path: Path | None = None,
) -> None:
    """Poll ``ready`` until it is true; fail early if ``process`` exits."""
    deadline = time.monotonic() + timeout
    delay = 0.02
    while True:
        if ready():
            return
        if process is not None and process.poll() is not None:
            raise EmbeddedServerError(
                f"{what} exited with code {process.returncode} while starting" + _log_tail(log_path)
            )
        if time.monotonic() > deadline:
            raise EmbeddedServerError(
                f"{what} not ready after {timeout:.0f}s" + _log_tail(log_path)
            )
        time.sleep(delay)
        delay = min(delay * 1.5, 0.25)


def _log_tail(log_path: Path | None, lines: int = 20) -> str:
    if log_path is None:
        return ""
    try:
        tail = log_path.read_text(errors="replace").splitlines()[-lines:]
    except OSError:
        return ""
    return f"; last lines of {log_path}:\n" + "\n".join(tail)


def stop_pid(
    pid: int,
    *,
    sig: int,
    timeout: float,
    process: subprocess.Popen[bytes] | None = None,
) -> None:
    """Send ``sig`` to ``pid`` and wait for it to exit; SIGKILL it after ``timeout``."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)
    if _wait_gone(pid, timeout, process):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    if not _wait_gone(pid, 5.0, process):
        raise EmbeddedServerError(f"process {pid} did not exit after SIGKILL")


def _wait_gone(pid: int, timeout: float, process: subprocess.Popen[bytes] | None) -> bool:
    if process is not None:
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def ensure_traversable(path: Path) -> list[Path]:
    """Let other users traverse every ancestor of ``path`` (add o+x only; no read access).

    Needed when we are root and run PostgreSQL as an unprivileged user. Returns the folders
    whose mode changed.
    """
    changed: list[Path] = []
    for folder in path.resolve().parents:
        try:
            mode = folder.stat().st_mode
        except OSError as exc:
            raise EmbeddedServerError(f"cannot inspect {folder}: {exc}") from exc
        if mode & 0o001 == 0:
            try:
                folder.chmod(mode | 0o001)
            except OSError as exc:
                if exc.errno in (errno.EPERM, errno.EROFS):
                    raise EmbeddedServerError(
                        f"{folder} is not traversable by other users; the embedded PostgreSQL "
                        "runs as an unprivileged user when started by root"
                    ) from exc
                raise
            changed.append(folder)
    return changed
