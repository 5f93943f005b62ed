"""``python -m tests.load.loadgen URL --max-requests N --max-seconds S --threads T [--rate R]
--stop FILE``

A small, bounded load generator (a SECOND process, so its own CPU time is not the API's): T
threads send ``GET URL`` over keep-alive connections, R requests/s in all (back to back when R
is 0), until N requests were sent,
S seconds passed or FILE exists, whichever comes first. 127.0.0.1 only. Prints one JSON line:
count, errors, non-200 answers, seconds and the latency percentiles in milliseconds."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time
from urllib.parse import urlsplit

import httpx


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--max-requests", type=int, default=5000)
    parser.add_argument("--max-seconds", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rate", type=float, default=0.0, help="requests/s in all (0: flat out)")
    parser.add_argument("--stop", default="")
    args = parser.parse_args()
    if urlsplit(args.url).hostname not in ("127.0.0.1", "::1"):
        raise SystemExit("loadgen talks to 127.0.0.1 / ::1 only")
    max_requests = min(args.max_requests, 100_000)
    deadline = time.monotonic() + min(args.max_seconds, 900.0)
    lock = threading.Lock()
    latencies: list[float] = []
    failures = {"errors": 0, "non_200": 0}
    sent = [0]

    def take() -> bool:
        with lock:
            if sent[0] >= max_requests:
                return False
            sent[0] += 1
            return True

    interval = args.threads / args.rate if args.rate > 0 else 0.0

    def run() -> None:
        due = time.monotonic()
        with httpx.Client(timeout=5.0, trust_env=False) as client:
            while time.monotonic() < deadline and take():
                if args.stop and os.path.exists(args.stop):
                    return
                if interval:  # paced: one request per interval per thread
                    due += interval
                    time.sleep(max(0.0, due - time.monotonic()))
                began = time.perf_counter()
                try:
                    status = client.get(args.url).status_code
                except httpx.HTTPError:
                    with lock:
                        failures["errors"] += 1
                    continue
                elapsed = (time.perf_counter() - began) * 1000
                with lock:
                    latencies.append(elapsed)
                    if status != 200:
                        failures["non_200"] += 1

    began = time.monotonic()
    threads = [threading.Thread(target=run) for _ in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.monotonic() - began
    print(
        json.dumps(
            {
                "count": len(latencies),
                **failures,
                "seconds": round(seconds, 2),
                "rps": round(len(latencies) / seconds, 1) if seconds else 0.0,
                "p50_ms": round(percentile(latencies, 50), 2),
                "p95_ms": round(percentile(latencies, 95), 2),
                "p99_ms": round(percentile(latencies, 99), 2),
                "max_ms": round(max(latencies, default=0.0), 2),
                "mean_ms": round(statistics.fmean(latencies), 2) if latencies else 0.0,
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
