"""What the API gives its operators: every request counted and timed by route template and
status with a request id on its log lines (:mod:`.http_observer`), and ``GET /metrics``
for Prometheus, readable only by whom ``TRUCO_METRICS_TOKEN`` and ``TRUCO_METRICS_ALLOW``
say (:mod:`.metrics_route`). docs/operations.md."""
