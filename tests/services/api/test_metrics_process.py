"""The API as it is deployed (``python -m services.api.serve``, uvicorn) in Prometheus's
multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``) with JSON log lines: ``/metrics`` counts the
requests made to it, holds the streams' capacity from the settings, and a previous run's
files in the folder (a dead process's) are forgotten at start."""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.services.worker.processes import answers, free_port, start, stop, wait_for

pytestmark = [pytest.mark.slow]


def sample(text: str, name: str, **labels: str) -> float:
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    return 0.0


def test_the_served_api_counts_its_requests_across_its_files(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    folder = tmp_path / "metrics"
    folder.mkdir()
    # a dead process's counter file, as a crashed run leaves it (pid 2**22 + 1 is never alive)
    stale = folder / f"counter_{2**22 + 1}.db"
    stale.write_bytes(struct.pack("i", 8) + b"\x00" * 4)
    port = free_port()
    env = {
        **stack_env,
        "PROMETHEUS_MULTIPROC_DIR": str(folder),
        "TRUCO_LOG_FORMAT": "json",
        "TRUCO_STREAMS_TOTAL": "123",
    }
    log = tmp_path / "api.log"
    argv = [sys.executable, "-m", "services.api.serve", "--port", str(port)]
    process = start(argv, env, log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: answers(f"{base}/v1/bots"), 60, "the API", log)
        for _ in range(4):
            assert httpx.get(f"{base}/v1/tournaments", timeout=10).status_code == 200
        text = httpx.get(f"{base}/metrics", timeout=10).text
        assert not stale.exists()  # forgotten before anything was counted
        assert any(path.name.endswith(".db") for path in folder.iterdir())
        ok = {"method": "GET", "route": "/v1/tournaments", "status": "200"}
        assert sample(text, "truco_http_requests_total", **ok) == 4
        assert sample(text, "truco_sse_streams_capacity") == 123
        assert sample(text, "truco_sse_streams_open") == 0
        # refused from the outside when a trusted proxy forwards another client's address
        # (here no proxy is trusted: the peer is 127.0.0.1, which may read)
        forwarded = httpx.get(
            f"{base}/metrics", headers={"X-Forwarded-For": "203.0.113.9"}, timeout=10
        )
        assert forwarded.status_code == 200
    finally:
        stop(process)
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    parsed = [json.loads(line) for line in lines]  # every line is a JSON object
    assert any(
        "Uvicorn running" in p["message"] or "Application startup" in p["message"] for p in parsed
    )
