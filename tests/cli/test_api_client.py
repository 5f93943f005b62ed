"""truco_cli/api.py on its own: how answers that are not the platform's usual ones are read
(a rate limit, a body that is not a problem, a server that is not the platform). The HTTP
exchanges are httpx's MockTransport: nothing leaves this process."""

from __future__ import annotations

import httpx
import pytest

from truco_cli.api import Platform
from truco_cli.errors import CommandError


def _platform(*answers: httpx.Response) -> tuple[Platform, list[httpx.Request]]:
    seen: list[httpx.Request] = []
    queue = list(answers)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return queue.pop(0)

    return Platform("http://platform.test", "ta_k", transport=httpx.MockTransport(handler)), seen


def _limited(retry_after: str) -> httpx.Response:
    problem = {"type": "/problems/rate-limited", "title": "Too Many Requests", "status": 429}
    return httpx.Response(
        429, json={**problem, "detail": "over the limit"}, headers={"retry-after": retry_after}
    )


def test_a_read_over_the_rate_limit_waits_and_asks_again() -> None:
    platform, seen = _platform(_limited("0"), _limited("0"), httpx.Response(200, json={"ok": 1}))
    assert platform.get("/v1/leaderboards/1v1") == {"ok": 1}
    assert len(seen) == 3 and all(r.url.path == "/v1/leaderboards/1v1" for r in seen)


def test_a_change_over_the_rate_limit_is_not_sent_twice_and_says_when_to_retry() -> None:
    platform, seen = _platform(_limited("12"))
    with pytest.raises(CommandError) as caught:
        platform.request("POST", "/v1/challenges", body={"bot_a": 1, "bot_b": 2}, auth=True)
    assert len(seen) == 1 and seen[0].headers["authorization"] == "Bearer ta_k"
    assert caught.value.problem["status"] == 429
    assert caught.value.problem["detail"] == "over the limit (retry after 12 s)"


def test_answers_that_are_not_problems_or_not_json() -> None:
    platform, _ = _platform(
        httpx.Response(502, text="<html>Bad Gateway</html>"),
        httpx.Response(200, text="<html>a web page</html>"),
    )
    with pytest.raises(CommandError) as gateway:
        platform.get("/v1/bots")
    assert gateway.value.problem["status"] == 502
    assert gateway.value.problem["detail"] == "GET /v1/bots: <html>Bad Gateway</html>"
    with pytest.raises(CommandError) as page:
        platform.get("/v1/bots")
    assert page.value.problem["title"] == "Not a platform answer"
    assert "is this the platform's URL?" in page.value.problem["detail"]


def test_no_key_is_refused_before_any_request() -> None:
    platform, seen = _platform()
    platform.key = None
    with pytest.raises(CommandError) as caught:
        platform.request("DELETE", "/v1/bots/1", auth=True)
    assert caught.value.problem["title"] == "No API key" and caught.value.exit_code == 2
    assert seen == []


def test_a_key_sent_unencrypted_over_a_network_is_warned_about_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    platform, _ = _platform(httpx.Response(204), httpx.Response(204))
    platform.request("DELETE", "/v1/bots/1", auth=True)
    platform.request("DELETE", "/v1/bots/2", auth=True)
    warned = capsys.readouterr().err
    assert warned.count("warning: sending your API key to platform.test without encryption") == 1
    local, _ = _platform(httpx.Response(204))
    local.url = "http://127.0.0.1:8000"
    local.request("DELETE", "/v1/bots/1", auth=True)
    assert capsys.readouterr().err == ""


def test_a_problem_keeps_the_members_the_platform_added() -> None:
    problem = {"type": "/problems/x", "title": "Conflict", "status": 409, "detail": "taken"}
    platform, _ = _platform(httpx.Response(409, json={**problem, "instance": "/v1/bots/7"}))
    with pytest.raises(CommandError) as caught:
        platform.get("/v1/bots/7")
    assert caught.value.problem == {**problem, "instance": "/v1/bots/7"}
