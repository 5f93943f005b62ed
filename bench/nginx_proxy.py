"""nginx as a round-robin, non-sticky reverse proxy in front of API processes on 127.0.0.1,
for the cluster benchmarks and the soak test (``tests/services/worker/test_cluster_soak.py``).

:func:`proxy_argv` writes the configuration under a work folder and returns the command that
runs nginx in the foreground (``daemon off``: the caller starts it, in a session of its own,
and stops it) and the proxy's base URL. Each request goes to the next API in turn (no
affinity: a stream's reconnection lands anywhere); a refused connection is retried on the
next API (``proxy_next_upstream``), an API that failed is skipped for 2 s. Response
buffering is off, so Server-Sent Events pass through as they are written.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

DEFAULT_NGINX = "/usr/sbin/nginx"


def nginx_binary() -> str | None:
    """``TRUCO_NGINX``, else ``nginx`` on PATH, else /usr/sbin/nginx; None if not runnable."""
    found = os.environ.get("TRUCO_NGINX") or shutil.which("nginx") or DEFAULT_NGINX
    return found if os.access(found, os.X_OK) else None


def config_text(upstream_ports: list[int], port: int, work: Path) -> str:
    servers = "".join(
        f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;\n" for p in upstream_ports
    )
    temp = "".join(
        f"  {kind}_temp_path {work / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"pid {work / 'nginx.pid'};\nerror_log {work / 'error.log'};\ndaemon off;\n"
        "worker_processes 1;\nworker_rlimit_nofile 8192;\n"
        "events { worker_connections 4096; }\n"
        f"http {{\n  access_log off;\n{temp}"
        f"  upstream api {{\n{servers}  }}\n"
        f"  server {{\n    listen 127.0.0.1:{port} backlog=4096;\n    location / {{\n"
        "      proxy_pass http://api;\n      proxy_http_version 1.1;\n"
        '      proxy_set_header Connection "";\n      proxy_buffering off;\n'
        "      proxy_read_timeout 60s;\n      proxy_next_upstream error timeout http_502;\n"
        "    }\n  }\n}\n"
    )


def proxy_argv(
    nginx: str, upstream_ports: list[int], port: int, work: Path
) -> tuple[list[str], str]:
    """(the command running nginx in the foreground, the proxy's base URL); the configuration
    is checked (``nginx -t``) first: a bad one raises with nginx's message."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "nginx.conf").write_text(config_text(upstream_ports, port, work))
    argv = [nginx, "-p", str(work), "-c", str(work / "nginx.conf")]
    checked = subprocess.run([*argv, "-t"], capture_output=True, text=True, timeout=30)
    if checked.returncode != 0:
        raise RuntimeError(f"nginx -t: {checked.stderr}")
    return argv, f"http://127.0.0.1:{port}"
