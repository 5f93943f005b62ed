"""Other clients under one address's slowloris, per-address caps off and on (issue 21, break 1).

What runs, all on 127.0.0.1 and real: PostgreSQL (a database of this run's own, migrated,
dropped at the end), Redis (``REDIS_URL``, keys under this run's prefix) and the API as
production serves it (``python -m services.api.serve``), twice: first with the per-address caps
off (``TRUCO_CONNECTIONS_PER_ADDRESS`` and ``TRUCO_UNFINISHED_HEADS_PER_ADDRESS`` at 100000:
only uvicorn's global 512), then with their defaults (32 and 8). For each: ``BENCH_REQUESTS``
(200) requests ``GET /v1/bots`` from 127.0.0.2, one after another, each on a new connection,
first with nothing else going on, then while :mod:`bench.slowloris` (its own process) holds
600 half-open requests from 127.0.0.1 and reopens whatever the server closes.

Figures per mode and phase: p50/p99/max latency of the other client's requests (connect to the
status line), how many were 200 and how many 503 or unanswered, and the slowloris' own counts
(connections it opened, how many the server answered 503), and the share of a core the API
used meanwhile (and the slowloris: it runs on the same cores, so its own CPU is taken from
the API; an attacker elsewhere would not be). Text lines, then one JSON line.
"""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import time
from typing import Any

import httpx

from bench.platform_procs import Procs, own_cpu_s
from bench.platform_run import ROOT, platform_run
from bench.slowloris import READY
from bench.smoke import env_size, size
from services.launch.embedded._process import choose_port

CLIENT = "127.0.0.2"
OFF = "100000"
MODES = {"caps off": {"TRUCO_CONNECTIONS_PER_ADDRESS": OFF,
                      "TRUCO_UNFINISHED_HEADS_PER_ADDRESS": OFF},
         "caps on": {}}  # fmt: skip
FLOOD_CONNECTIONS = size("600", "100")  # the slowloris's (its default: 600)
SETTLE_S = size(1.0, 0.2)
REQUEST = b"GET /v1/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def one_request(port: int) -> tuple[float, int, float]:
    """(seconds to the status line, status (0: closed unanswered or timed out), seconds of
    them to the connection's establishment)."""
    began = time.perf_counter()
    connected = began
    try:
        with socket.create_connection(
            ("127.0.0.1", port), timeout=10, source_address=(CLIENT, 0)
        ) as sock:
            connected = time.perf_counter()
            sock.sendall(REQUEST)
            answer = b""
            while b"\r\n" not in answer:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                answer += chunk
    except OSError:
        return time.perf_counter() - began, 0, connected - began
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    return time.perf_counter() - began, status, connected - began


def measure(port: int, requests: int, api_pid: int) -> dict[str, Any]:
    began, cpu = time.monotonic(), own_cpu_s(api_pid)
    results = [one_request(port) for _ in range(requests)]
    wall = time.monotonic() - began
    ms = sorted(1000 * s for s, _, _ in results)
    connect_ms = sorted(1000 * c for _, _, c in results)
    return {
        "api_cpu_share": round((own_cpu_s(api_pid) - cpu) / wall, 2),
        "requests": requests,
        "ok": sum(1 for _, status, _ in results if status == 200),
        "503": sum(1 for _, status, _ in results if status == 503),
        "unanswered": sum(1 for _, status, _ in results if status == 0),
        "p50_ms": round(statistics.median(ms), 1),
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 1),
        "max_ms": round(ms[-1], 1),
        "connect_p99_ms": round(connect_ms[min(len(ms) - 1, int(0.99 * len(ms)))], 1),
        "connect_max_ms": round(connect_ms[-1], 1),
    }


def serve(procs: Procs, name: str, env: dict[str, str]) -> int:
    port = choose_port(())
    argv = [sys.executable, "-m", "services.api.serve", "--port", str(port), "--no-access-log"]
    procs.start(name, argv, env)
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health/live", timeout=5).status_code == 200:
                return port
        except httpx.HTTPError:
            pass
        if procs.running[name].poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the API did not start:\n{procs.log(name)[-3000:]}")
        time.sleep(0.2)


def under_flood(port: int, requests: int, api_pid: int) -> tuple[dict[str, Any], dict[str, int]]:
    flood = subprocess.Popen(
        [sys.executable, "-m", "bench.slowloris", str(port), "--connections", FLOOD_CONNECTIONS],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    started = time.monotonic()
    try:
        assert flood.stdout is not None
        line = flood.stdout.readline()
        if line.strip() != READY:
            raise RuntimeError(f"the slowloris did not start: {line!r}")
        time.sleep(SETTLE_S)  # it reopens what was closed: let it settle
        began, cpu = time.monotonic(), own_cpu_s(flood.pid)
        figures = measure(port, requests, api_pid)
        figures["slowloris_cpu_share"] = round(
            (own_cpu_s(flood.pid) - cpu) / (time.monotonic() - began), 2
        )
    finally:
        flood.terminate()
        out, _ = flood.communicate(timeout=30)
    counts: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    counts["opened_per_s"] = round(counts["opened"] / (time.monotonic() - started))
    return figures, counts


def run(requests: int) -> list[dict[str, Any]]:
    results = []
    with platform_run("caps") as platform:
        for mode, extra in MODES.items():
            with Procs(platform.work / "logs", ROOT) as procs:
                name = mode.replace(" ", "-")
                port = serve(procs, name, {**platform.env, **extra})
                pid = procs.running[name].pid
                idle = measure(port, requests, pid)
                flooded, flood = under_flood(port, requests, pid)
            results.append({"mode": mode, "idle": idle, "slowloris": flooded, "flood": flood})
    return results


def report(results: list[dict[str, Any]]) -> None:
    for r in results:
        for phase in ("idle", "slowloris"):
            f = r[phase]
            print(
                f"{r['mode']:>8}, {phase:>9}: other client p50 {f['p50_ms']} ms, "
                f"p99 {f['p99_ms']} ms, max {f['max_ms']} ms (connecting: p99 "
                f"{f['connect_p99_ms']} ms, max {f['connect_max_ms']} ms); {f['ok']}/{f['requests']} "
                f"answered 200, {f['503']} got 503, {f['unanswered']} unanswered; "
                f"the API used {f['api_cpu_share']:.0%} of a core"
            )
        flood = r["flood"]
        print(
            f"{r['mode']:>8}: the slowloris opened {flood['opened']} connections "
            f"({flood['opened_per_s']} a second), "
            f"held up to {flood['most_open']}, {flood['answered_503']} were answered 503; "
            f"it used {r['slowloris']['slowloris_cpu_share']:.0%} of a core (on the same cores)"
        )
    print(json.dumps({"address_caps": results}))


def main() -> None:
    report(run(int(env_size("BENCH_REQUESTS", "200", "20"))))
