"""Celery's own format, named once: what the platform hands Celery as it is (its settings, a
task's options, a beat entry). Every ``dict[str, Any]`` of the worker that is Celery's is this
type; the platform's own documents are msgspec Structs."""

from __future__ import annotations

from typing import Any

CeleryOptions = dict[str, Any]
