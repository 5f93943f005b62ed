"""The reverse-proxy example (``infra/nginx/truco-arena.conf``) matches the API's own limits,
and, when nginx is on this machine, loads and proxies to the API on 127.0.0.1."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from services.api import serve
from services.api.app import MAX_BODY_BYTES
from services.api.guard import slow_clients
from tests.services.api.served_api import Served, serve_api
from tests.services.worker.processes import free_port, wait_for

CONF = Path(__file__).resolve().parents[3] / "infra" / "nginx" / "truco-arena.conf"
NGINX = os.environ.get("TRUCO_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"


def directive(name: str, text: str | None = None) -> list[str]:
    """The values of every ``name ...;`` line of the file (comments left out)."""
    body = re.sub(r"#[^\n]*", "", text if text is not None else CONF.read_text())
    return [m.strip() for m in re.findall(rf"(?m)^\s*{re.escape(name)}\s+([^;]+);", body)]


def seconds(value: str) -> float:
    assert value.endswith("s"), value
    return float(value[:-1])


def test_the_proxy_is_at_least_as_strict_as_the_api() -> None:
    assert seconds(directive("client_header_timeout")[0]) <= serve.HEAD_TIMEOUT_S
    assert seconds(directive("client_body_timeout")[0]) <= slow_clients.BODY_TIMEOUT_S
    assert seconds(directive("keepalive_timeout")[0]) <= serve.KEEP_ALIVE_S  # clients
    assert seconds(directive("send_timeout")[0]) <= serve.WRITE_DEADLINE_S
    upstream = CONF.read_text().split("upstream truco_api", 1)[1].split("}", 1)[0]
    # nginx drops its idle upstream connections before the API would close them
    assert seconds(directive("keepalive_timeout", upstream)[0]) < serve.KEEP_ALIVE_S
    assert directive("client_max_body_size") == [f"{MAX_BODY_BYTES // 1024}k"]
    # the peer's address replaces whatever X-Forwarded-For the client sent
    assert "X-Forwarded-For $remote_addr" in directive("proxy_set_header")
    assert "off" not in directive("proxy_request_buffering")
    # per client address, no looser than the API's own caps (issue 21)
    assert int(directive("limit_conn")[0].split()[-1]) <= serve.CONNECTIONS_PER_ADDRESS


def test_live_streams_pass_unbuffered_and_outlive_the_heartbeat() -> None:
    from services.api.sse import feeds

    text = CONF.read_text()
    stream = text.split("location ~ ^/v1/(matches|tournaments)/[0-9]+/stream$", 1)[1]
    stream = stream.split("}", 1)[0]
    assert directive("proxy_buffering", stream) == ["off"]
    assert seconds(directive("proxy_read_timeout", stream)[0]) > feeds.HEARTBEAT_S
    assert "off" not in directive("proxy_buffering", text.split("location / {", 1)[1])


@pytest.fixture(scope="module")
def api(database_url: str) -> Iterator[Served]:
    with serve_api(database_url) as server:
        yield server


@pytest.fixture
def nginx(api: Served, tmp_path: Path) -> Iterator[str]:
    if not os.access(NGINX, os.X_OK):
        pytest.skip(f"no nginx at {NGINX} (install nginx, or set TRUCO_NGINX to its binary)")
    port = free_port()
    site = CONF.read_text()
    site = site.replace("server api:8000;", f"server 127.0.0.1:{api.port};")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    (tmp_path / "site.conf").write_text(site)
    temp = "".join(
        f"  {kind}_temp_path {tmp_path / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path / 'nginx.pid'};\nerror_log {tmp_path / 'error.log'};\n"
        f"daemon off;\nevents {{}}\nhttp {{\n  access_log off;\n{temp}"
        f"  include {tmp_path / 'site.conf'};\n}}\n"
    )
    argv = [NGINX, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")]
    checked = subprocess.run([*argv, "-t"], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _answers(base), 15, "nginx", tmp_path / "error.log")
        yield base
    finally:
        process.send_signal(signal.SIGQUIT)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def _answers(base: str) -> bool:
    try:
        httpx.get(base + "/schema/openapi.json", timeout=2, trust_env=False)
    except httpx.HTTPError:
        return False
    return True


def test_requests_pass_through_the_proxy_and_oversized_bodies_stop_there(nginx: str) -> None:
    with httpx.Client(base_url=nginx, timeout=10, trust_env=False) as client:
        schema = client.get("/schema/openapi.json")
        assert schema.status_code == 200 and schema.json()["info"]["title"]
        page = client.get("/no/such/page")
        assert page.status_code == 404 and "text/html" in page.headers["content-type"]
        began = time.monotonic()
        big = client.post(
            "/v1/accounts",
            content=b"{" + b" " * (MAX_BODY_BYTES + 10) + b"}",
            headers={"content-type": "application/json"},
        )
        assert big.status_code == 413
        assert big.headers["server"] == "nginx"  # refused by the proxy (no version shown)
        assert time.monotonic() - began < 30
