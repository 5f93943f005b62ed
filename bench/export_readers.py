"""Export readers (issue 21, break 2): the API's memory with stalled export readers, and the
API's CPU per export served.

What runs, all on 127.0.0.1: PostgreSQL (a database of this run's own, migrated, dropped at
the end) holding one finished round robin played in this process (``BENCH_EXPORT_BOTS`` bots,
24, ten games a match: an export of ~10 MB), and the API as served
(``python -m services.api.serve``, rate-limit counters in memory, the export caps raised so
every reader is let in). Then:

* CPU: one export downloaded whole (the first: a finished event's files are made), then
  ``BENCH_EXPORT_REPEAT`` (5) more plain and as many gzip: the API process's CPU seconds
  (``/proc``) per export;
* load: ``BENCH_EXPORT_CONCURRENT`` (16) clients downloading the gzip export over and over
  for 8 s (the smoke run: 0.5 s), and meanwhile ``GET /v1/tournaments/{id}`` timed (median
  and p99), against the same requests timed alone;
* memory: the API's RSS once settled, then with ``BENCH_STALLED`` (100) readers that ask for
  the plain export and never read (a 4 KiB receive buffer), settled again; and the median
  time of ``/health/live`` meanwhile.

``BENCH_BASELINE_ROOT=<checkout>`` runs that checkout's API first on the same database (a
before/after in one run). Text lines, then one JSON line per tree.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from bench.export_readers_kit import (
    make_large_event,
    read_response,
    rss_bytes,
    settle_rss,
    stalled_reader,
)
from bench.platform_procs import Procs
from bench.platform_run import ROOT, platform_env, platform_run
from bench.serve import SERVED, port_of, start_api
from bench.smoke import env_size, size

LOAD_S = size(8.0, 0.5)  # the downloads under load (the smoke run: every step, briefly)
ALONE_S = size(3.0, 0.3)  # the other requests timed alone
QUIET_S = size(3.0, 0.3)  # the API's RSS stable this long with the stalled readers
SETTLED_S = size(1.5, 0.3)  # and before them
PROBES = size(20, 3)  # /health/live timed with the stalled readers


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _download(port: int, path: str, *, gzip: bool) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        coding = "gzip" if gzip else "identity"
        sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: {coding}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        head, body = read_response(sock)
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"the export was not served: {head[:200]!r}")
    return len(body)


def _timed(client: httpx.Client, path: str, until: float) -> list[float]:
    times = []
    while time.monotonic() < until:
        start = time.monotonic()
        client.get(path)
        times.append(time.monotonic() - start)
        time.sleep(0.02)
    return times


def _quantiles_ms(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return round(statistics.median(ordered) * 1000, 2), round(p99 * 1000, 2)


def _under_load(port: int, tid: int, clients: int, seconds: float) -> dict[str, Any]:
    """Other requests' latency alone, then while ``clients`` download the gzip export."""
    path = f"/v1/tournaments/{tid}"
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        alone = _timed(client, path, time.monotonic() + ALONE_S)
        stop = time.monotonic() + seconds
        served = [0] * clients

        def download(k: int) -> None:
            while time.monotonic() < stop:
                _download(port, f"{path}/export", gzip=True)
                served[k] += 1

        threads = [threading.Thread(target=download, args=(k,)) for k in range(clients)]
        for thread in threads:
            thread.start()
        loaded = _timed(client, path, stop)
        for thread in threads:
            thread.join()
    return {
        "concurrent_exports": clients,
        "exports_served_in_load": sum(served),
        "other_ms_alone": _quantiles_ms(alone),
        "other_ms_under_exports": _quantiles_ms(loaded),
    }


def measure(root: Path, database_url: str, tid: int, work: Path) -> dict[str, Any]:
    repeat = int(env_size("BENCH_EXPORT_REPEAT", "5", "1"))
    stalled = int(env_size("BENCH_STALLED", "100", "4"))
    env = platform_env(database_url, "", "", work / "data", root)
    env.pop("REDIS_URL")
    env.pop("TRUCO_REDIS_PREFIX")
    caps = str(stalled + 10)
    env.update(
        TRUCO_EXPORTS_PER_ADDRESS=caps, TRUCO_EXPORTS_TOTAL=caps, TRUCO_WRITE_DEADLINE_S="600"
    )
    path = f"/v1/tournaments/{tid}/export"
    with Procs(work / "logs", root) as procs:
        port = port_of(start_api(procs, env, argv=SERVED, health=False))
        pid = procs.running["api"].pid
        began = _cpu_s(pid)
        size = _download(port, path, gzip=False)
        first_cpu = _cpu_s(pid) - began
        cpu: dict[str, float] = {}
        packed = 0
        for gzip in (False, True):
            began = _cpu_s(pid)
            for _ in range(repeat):
                got = _download(port, path, gzip=gzip)
                packed = got if gzip else packed
            cpu["gzip" if gzip else "plain"] = (_cpu_s(pid) - began) / repeat
        load = _under_load(port, tid, int(env_size("BENCH_EXPORT_CONCURRENT", "16", "2")), LOAD_S)
        before = settle_rss(pid, quiet_s=SETTLED_S)
        readers = [stalled_reader(port, path) for _ in range(stalled)]
        try:
            served = sum(sock.recv(64).startswith(b"HTTP/1.1 200") for sock in readers)
            after = settle_rss(pid, quiet_s=QUIET_S, within_s=120.0)
            probes = []
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
                for _ in range(PROBES):
                    start = time.monotonic()
                    client.get("/health/live")
                    probes.append(time.monotonic() - start)
            peak = max(after, rss_bytes(pid))
        finally:
            for sock in readers:
                sock.close()
    return {
        "tree": "this" if root == ROOT else str(root),
        "export_bytes": size,
        "gzip_bytes": packed,
        "first_export_cpu_s": round(first_cpu, 3),
        "cpu_s_per_plain_export": round(cpu["plain"], 3),
        "cpu_s_per_gzip_export": round(cpu["gzip"], 3),
        "stalled_readers": stalled,
        "stalled_served": served,
        "rss_before_mib": round(before / 2**20, 1),
        "rss_stalled_mib": round(peak / 2**20, 1),
        "rss_per_stalled_reader_kib": round((peak - before) / stalled / 1024, 1),
        "health_median_ms_while_stalled": round(statistics.median(probes) * 1000, 2),
        **load,
    }


def report(r: dict[str, Any]) -> None:
    print(
        f"{r['tree']}: export {r['export_bytes'] / 2**20:.1f} MiB ({r['gzip_bytes'] / 2**20:.1f} "
        f"MiB gzip); API CPU per export: first {r['first_export_cpu_s']:.3f} s, then plain "
        f"{r['cpu_s_per_plain_export']:.3f} s, gzip {r['cpu_s_per_gzip_export']:.3f} s"
    )
    print(
        f"{r['tree']}: GET /v1/tournaments/{{id}} median/p99 {r['other_ms_alone']} ms alone, "
        f"{r['other_ms_under_exports']} ms while {r['concurrent_exports']} clients download "
        f"the gzip export ({r['exports_served_in_load']} served in {LOAD_S:g} s)"
    )
    print(
        f"{r['tree']}: {r['stalled_readers']} stalled readers ({r['stalled_served']} served): "
        f"API RSS {r['rss_before_mib']} -> {r['rss_stalled_mib']} MiB "
        f"({r['rss_per_stalled_reader_kib']} KiB a reader); /health/live median "
        f"{r['health_median_ms_while_stalled']} ms meanwhile"
    )
    print(json.dumps({"export_readers": r}))


def main() -> None:
    with platform_run("export") as platform:
        bots = int(env_size("BENCH_EXPORT_BOTS", "24", "4"))
        tid = make_large_event(platform.database_url, bots=bots, games=size(10, 1))
        baseline = os.environ.get("BENCH_BASELINE_ROOT", "").strip()
        roots = [Path(baseline).resolve()] if baseline else []
        for k, root in enumerate([*roots, ROOT]):
            report(measure(root, platform.database_url, tid, platform.work / str(k)))


if __name__ == "__main__":
    main()
