"""`truco tournament create` takes every setting the API accepts: ``--third-place``,
``--timeout-ms``, ``--fault-limit`` and ``--start-at`` (an ISO 8601 instant or a delay from
now), checked against what the platform stored; a time it cannot read is a usage error that
says what it accepts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.cli.conftest import Truco, unique
from truco_cli.when import instant


def test_create_passes_every_setting(platform_url: str, truco: Truco) -> None:
    truco.ok("account", "create", unique("opts"), "--url", platform_url)
    created = truco.ok(
        "tournament", "create", unique("ko"), "--format", "single_elimination", "--mode", "1v1",
        "--third-place", "--timeout-ms", "2500", "--fault-limit", "3",
        "--start-at", "2099-06-01T18:30:00Z",
    )  # fmt: skip
    assert "starts by itself at 2099-06-01T18:30:00Z" in created.out, created.out
    tid = created.out.split()[1]
    detail = httpx.get(f"{platform_url}/v1/tournaments/{tid}").json()
    settings = detail["settings"]
    assert settings["third_place"] is True
    assert settings["timeout_ms"] == 2500 and settings["fault_limit"] == 3
    assert detail["start_at"] == "2099-06-01T18:30:00Z"
    before = datetime.now(UTC)
    as_json = truco.ok(
        "tournament", "create", unique("later"), "--format", "swiss", "--mode", "1v1",
        "--start-at", "+2h", "--json",
    ).json()  # fmt: skip
    start = datetime.fromisoformat(as_json["start_at"])
    assert (
        timedelta(hours=2) - timedelta(minutes=1) <= start - before <= timedelta(hours=2, minutes=1)
    )
    assert as_json["settings"]["third_place"] is False  # not asked for
    # out of the API's range: the platform's 422 names the field
    slow = truco("tournament", "create", unique("x"), "--format", "swiss", "--mode", "1v1",
                 "--timeout-ms", "5")  # fmt: skip
    assert slow.code == 1 and "timeout_ms" in slow.err


def test_a_time_it_cannot_read_says_what_it_accepts(truco: Truco) -> None:
    bad = truco("tournament", "create", "x", "--format", "swiss", "--mode", "1v1",
                "--start-at", "tomorrow")  # fmt: skip
    assert bad.code == 2
    assert "'tomorrow' is not a time" in bad.err and "+30m" in bad.err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2030-01-02T03:04:05Z", datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2030-01-02T03:04:05+02:00", datetime(2030, 1, 2, 1, 4, 5, tzinfo=UTC)),
        ("+90s", datetime(2030, 1, 1, 0, 1, 30, tzinfo=UTC)),
        ("+30m", datetime(2030, 1, 1, 0, 30, tzinfo=UTC)),
        ("+1d", datetime(2030, 1, 2, tzinfo=UTC)),
    ],
)
def test_times(text: str, expected: datetime) -> None:
    assert instant(text, now=datetime(2030, 1, 1, tzinfo=UTC)) == expected
