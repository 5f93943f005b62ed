"""Prometheus metrics: what every platform process counts, and how it is exposed.

One source of truth for every metric's name, help and labels: :mod:`services.metrics.catalog`
(the tests read it to check the dashboard and the alert rules of ``infra/``). A process
counts into those objects wherever the thing happens; :mod:`services.metrics.exposition`
turns them into the text Prometheus reads (from this process's memory, or, with
``PROMETHEUS_MULTIPROC_DIR``, from the files every process of a prefork pool writes);
:mod:`services.metrics.worker_port` serves a Celery worker's on a port of its own (the API
serves its own at ``GET /metrics``). docs/operations.md says what each metric means.

This folder is plumbing (the ``base`` room of ``tests/test_architecture.py``): it imports no
database, workflow or worker module, so the bot-calling worker and the workflow may count
into it too.
"""
