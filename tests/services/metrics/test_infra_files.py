"""``infra/``'s monitoring files, checked as far as possible without Prometheus and Grafana
(promtool is not installed here): every PromQL expression of the alert rules and of the
dashboard parses (``promql-parser``, the Rust parser's Python binding) and names only metrics
the platform exports (``services.metrics.catalog``) or Prometheus makes itself (``up``); the
dashboard's panels are well formed and do not overlap; the compose file scrapes what the
Prometheus configuration says and mounts the files that exist; docs/operations.md explains
every panel and every alert."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import promql_parser
import pytest
import yaml
from prometheus_client.metrics import MetricWrapperBase

from services.metrics import catalog

ROOT = Path(__file__).resolve().parents[3]
INFRA = ROOT / "infra"
OPERATIONS = (ROOT / "docs" / "operations.md").read_text()
BUILTIN = {"up", "scrape_duration_seconds", "scrape_samples_scraped"}
"""Series Prometheus adds to every target itself."""


def exported_series() -> set[str]:
    """Every series name the platform's processes can export."""
    names: set[str] = set(catalog.SCRAPE_TIME_METRICS)
    for value in vars(catalog).values():
        if not isinstance(value, MetricWrapperBase):
            continue
        name, kind = value._name, value._type
        if kind == "counter":
            names |= {f"{name}_total", f"{name}_created"}
        elif kind == "histogram":
            names |= {f"{name}_bucket", f"{name}_count", f"{name}_sum", f"{name}_created"}
        else:
            names.add(name)
    return names


def selectors(expr: str) -> list[tuple[str, list[str]]]:
    """(metric name, label names matched) of every vector selector in ``expr``."""
    found: list[tuple[str, list[str]]] = []

    def visit(node: Any) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            labels = [m.name for m in node.matchers.matchers]
            found.append((node.name, labels))

    promql_parser.walk(promql_parser.parse(expr), visit)
    return found


def label_names() -> dict[str, set[str]]:
    """Each exported series' label names (the collectors' too)."""
    out: dict[str, set[str]] = {}
    for value in vars(catalog).values():
        if isinstance(value, MetricWrapperBase):
            labels = set(value._labelnames)
            for suffix in ("", "_total", "_created", "_count", "_sum"):
                out[value._name + suffix] = labels
            out[value._name + "_bucket"] = labels | {"le"}
    out[catalog.QUEUE_DEPTH] = {"queue"}
    out[catalog.BROKER_UNACKED] = set()
    return out


def check_expression(expr: str) -> None:
    known = exported_series()
    labels = label_names()
    used = selectors(expr)
    assert used, f"no metric in {expr!r}"
    for name, matched in used:
        if name in BUILTIN:
            continue
        assert name in known, f"{name} is not exported by the platform ({expr!r})"
        unknown = set(matched) - labels[name] - {"__name__", "job", "instance"}
        assert not unknown, f"{name} has no label {unknown} ({expr!r})"


def alert_rules() -> list[dict[str, Any]]:
    document = yaml.safe_load((INFRA / "prometheus" / "alerts.yml").read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (INFRA / "grafana" / "dashboards" / "truco-arena.json").read_text()
    )
    return loaded


def test_the_checker_refuses_what_it_must() -> None:
    with pytest.raises(ValueError):
        promql_parser.parse("sum(rate(truco_bot_calls_total[5m])")
    with pytest.raises(AssertionError, match="not exported"):
        check_expression("rate(truco_bot_calls[5m])")  # a counter without _total
    with pytest.raises(AssertionError, match="no label"):
        check_expression('sum(truco_matches_playing{queue="x"})')
    check_expression('sum by (le) (rate(truco_store_duration_seconds_bucket{le="1.0"}[5m]))')


def test_every_alert_rule_parses_names_exported_metrics_and_has_a_runbook() -> None:
    rules = alert_rules()
    assert len(rules) >= 10
    names = [rule["alert"] for rule in rules]
    assert len(names) == len(set(names))
    for rule in rules:
        check_expression(rule["expr"])
        assert rule["labels"]["severity"] in {"warning", "critical"}
        assert re.fullmatch(r"\d+[smh]", rule["for"])
        assert rule["annotations"]["summary"]
        anchor = rule["alert"].lower()
        assert rule["annotations"]["runbook"] == f"docs/operations.md#{anchor}"
        # docs/operations.md has the section the runbook names (a heading per alert)
        assert re.search(rf"^#+ `?{rule['alert']}`?\s*$", OPERATIONS, re.MULTILINE), rule["alert"]


def test_the_dashboard_is_well_formed_and_its_queries_name_exported_metrics() -> None:
    board = dashboard()
    assert board["uid"] and board["title"] and isinstance(board["schemaVersion"], int)
    panels = board["panels"]
    ids = [panel["id"] for panel in panels]
    assert len(ids) == len(set(ids))
    cells: dict[tuple[int, int], str] = {}
    queries = 0
    for panel in panels:
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24 and grid["h"] > 0
        for x in range(grid["x"], grid["x"] + grid["w"]):
            for y in range(grid["y"], grid["y"] + grid["h"]):
                assert (x, y) not in cells, f"{panel['title']} overlaps {cells[(x, y)]}"
                cells[(x, y)] = panel["title"]
        if panel["type"] == "row":
            continue
        assert panel["type"] in {"timeseries", "stat"}
        assert panel["datasource"]["uid"] == "prometheus"
        assert panel["description"]
        refs = [target["refId"] for target in panel["targets"]]
        assert refs and len(refs) == len(set(refs))
        for target in panel["targets"]:
            check_expression(target["expr"])
            queries += 1
        # docs/operations.md says what each panel means
        assert f"**{panel['title']}**" in OPERATIONS, panel["title"]
    assert queries >= 25
    # every metric of the catalog is on the dashboard somewhere
    shown = {
        name
        for panel in panels
        for target in panel.get("targets", [])
        for name, _ in selectors(target["expr"])
    }
    families = {re.sub(r"_(total|bucket|sum|count)$", "", name) for name in shown}
    for value in vars(catalog).values():
        if isinstance(value, MetricWrapperBase):
            assert value._name in families, f"{value._name} is on no panel"
    assert set(catalog.SCRAPE_TIME_METRICS) <= families


def test_the_grafana_provisioning_names_the_dashboard_and_datasource() -> None:
    datasource = yaml.safe_load(
        (INFRA / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text()
    )["datasources"][0]
    assert datasource["uid"] == "prometheus" and datasource["type"] == "prometheus"
    provider = yaml.safe_load(
        (INFRA / "grafana" / "provisioning" / "dashboards" / "truco-arena.yml").read_text()
    )["providers"][0]
    assert provider["options"]["path"] == "/var/lib/grafana/dashboards"


def test_compose_scrapes_what_prometheus_is_told_to() -> None:
    compose = yaml.safe_load((INFRA / "compose.yaml").read_text())
    services = compose["services"]
    config = yaml.safe_load((INFRA / "prometheus" / "prometheus.yml").read_text())
    # the rules file Prometheus loads is the one in the repository, mounted where it looks
    mounts = {
        volume.split(":")[1]: volume.split(":")[0] for volume in services["prometheus"]["volumes"]
    }
    for rule_file in config["rule_files"]:
        assert (INFRA / mounts[rule_file].removeprefix("./")).exists()
    assert (INFRA / mounts["/etc/prometheus/prometheus.yml"].removeprefix("./")).exists()
    for volume in services["grafana"]["volumes"]:
        source = volume.split(":")[0]
        if source.startswith("./"):
            assert (INFRA / source.removeprefix("./")).exists(), source
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    api = jobs["truco-api"]["static_configs"][0]["targets"]
    assert api == ["api:8000"] and jobs["truco-api"]["metrics_path"] == "/metrics"
    prometheus_address = services["prometheus"]["networks"]["monitoring"]["ipv4_address"]
    allowed = services["api"]["environment"]["TRUCO_METRICS_ALLOW"]
    import ipaddress

    assert ipaddress.ip_address(prometheus_address) in ipaddress.ip_network(allowed)
    for worker in ("worker-matches", "worker-results"):
        discovery = jobs[f"truco-{worker}"]["dns_sd_configs"][0]
        assert discovery["names"] == [worker]
        env = services[worker]["environment"]
        assert int(env["TRUCO_METRICS_PORT"]) == discovery["port"]
        assert env["PROMETHEUS_MULTIPROC_DIR"] in services[worker]["tmpfs"]
        assert "monitoring" in services[worker]["networks"]
    assert "monitoring" in services["api"]["networks"]
    # the bot-calling worker still holds no database credentials
    assert "DATABASE_URL" not in services["worker-matches"]["environment"]
