"""SPRT tests: is my bot stronger than that one? Played as unrated pairs by the workers."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

import asyncpg
import msgspec
from litestar import Controller, Request, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import JSONBody, Parameter

from arena.game.deals import MEMORY_RISK
from arena.sprt.pair import GAMES_PER_PAIR
from arena.sprt.stats import elo_estimate
from engine.errors import RulesError
from services import flow
from services.api.auth import SECURITY, current_account
from services.api.deps import send_matches, services_of, stop
from services.api.problems import FieldError, ProblemError, problem_responses
from services.api.routes.bodies import rules_problem
from services.api.routes.head_to_head import caller_may_pit
from services.api.routes.tournaments import flow_problem, mirrored_problem
from services.api.schemas.sprt import SprtCreate, SprtCreated, SprtPairs, SprtRead
from services.base.config import SprtQuota
from services.db import sprt_tests as db_sprt
from services.db.accounts import Account
from services.db.sprt_tests import StoredSprt
from services.domain import sprt_runs
from services.flow import sprt as flow_sprt
from services.flow.sprt_quota import RETRY_AFTER_S, SprtQuotaExceeded, sprt_quota

SprtId = Annotated[int, Parameter(ge=1, le=2**63 - 1, description="the test's id")]

_OWN_RULES = ("players", "points_to_win", "flor")


def _not_found(test_id: int) -> ProblemError:
    return ProblemError(404, f"there is no test {test_id}", slug="test-not-found")


def _invalid(field: str, message: str) -> ProblemError:
    return ProblemError(
        422, message, slug="invalid-test", errors=[FieldError(field=field, message=message)]
    )


@lru_cache(maxsize=64)
def llr_path(
    params: sprt_runs.SprtParams, scores: tuple[int, ...]
) -> tuple[tuple[int, float], ...]:
    """The LLR's path (rounded as the API shows it), computed once per test state: a test's
    scores only grow, so repeated reads of one state (polling clients, the page) cost a
    lookup instead of a few hundred fits."""
    return tuple((games, round(value, 4)) for games, value in sprt_runs.history(params, scores))


def sprt_read(test: StoredSprt) -> SprtRead:
    """The API's view of a test, every figure from its stored pair scores."""
    params = test.params
    stats = sprt_runs.sprt_of(params, test.scores)
    elo, (lo, hi) = elo_estimate(stats.count_tuple)
    low, high = stats.bounds
    return SprtRead(
        id=test.id,
        status=test.status,
        result=test.result,
        error=test.error,
        owner_id=test.owner_id,
        bot_a=test.bot_a,
        bot_b=test.bot_b,
        mode=test.mode,
        rules=test.rules,
        deals=test.deals,
        **msgspec.structs.asdict(params),
        games=GAMES_PER_PAIR * stats.pairs,
        wins=stats.wins,
        losses=stats.losses,
        pairs=SprtPairs(lost=stats.counts[0], split=stats.counts[1], won=stats.counts[2]),
        llr=round(stats.llr, 4),
        bounds=(round(low, 4), round(high, 4)),
        elo=round(elo, 1) + 0.0,  # + 0.0: never "-0.0"
        elo_interval=(round(lo, 1) + 0.0, round(hi, 1) + 0.0),
        history=list(llr_path(params, test.scores)),
        created_at=test.created_at,
        finished_at=test.finished_at,
    )


def _rules(data: SprtCreate) -> dict[str, object]:
    extra = data.rules or {}
    for key in _OWN_RULES:
        if key in extra:
            raise _invalid(
                f"body.rules.{key}", f"set {key} with the test's own field, not in rules"
            )
    return {**extra, "points_to_win": data.points, "flor": data.flor}


class SprtController(Controller):
    path = "/v1/tests"
    tags = ("tests",)

    @post(
        "/",
        operation_id="createTest",
        summary="Test whether your bot is stronger than another (SPRT on game pairs, unrated)",
        description=(
            "Plays unrated pairs of games (seats swapped) between `bot_a` (yours) and "
            "`bot_b` (yours, or any active bot that accepts challenges from others) through "
            "the workers, `concurrency` pairs at a time, until the sequential probability "
            "ratio test accepts H0 (A is at most `elo0` stronger) or H1 (A is at least `elo1` "
            "stronger), or `max_games` are played (`inconclusive`); docs/sprt.md explains the "
            "model. Follow it at GET /v1/tests/{test_id}. Quotas: by default an account may "
            f"have {SprtQuota().per_account} running tests, and a bot may be `bot_b` of "
            f"{SprtQuota().per_bot} running tests of other accounts (settings "
            "TRUCO_RUNNING_TESTS_PER_ACCOUNT and TRUCO_RUNNING_TESTS_PER_BOT); over either is a 429 "
            "(`/problems/too-many-tests`) with Retry-After. `deals: mirrored` only when both "
            f"bots are yours (a 422 otherwise), because {MEMORY_RISK}."
        ),
        status_code=202,
        dependencies={"account": Provide(current_account)},
        security=SECURITY,
        responses=problem_responses(401, 403, 404, 409, 413, 415, 422, 429),
    )
    async def create_test(
        self,
        request: Request[object, object, State],
        data: JSONBody[SprtCreate],
        pool: NamedDependency[asyncpg.Pool],
        account: NamedDependency[Account],
    ) -> SprtCreated:
        if not data.elo0 < data.elo1:
            raise _invalid("body.elo1", "elo1 must be above elo0")
        if data.alpha + data.beta >= 1.0:
            raise _invalid("body.beta", "alpha + beta must be below 1")
        target = await caller_may_pit(
            pool,
            account,
            data.bot_a,
            data.bot_b,
            refused=f"bot {data.bot_b} accepts tests only from its owner",
        )
        params = sprt_runs.SprtParams(
            elo0=data.elo0,
            elo1=data.elo1,
            alpha=data.alpha,
            beta=data.beta,
            max_games=data.max_games,
            concurrency=data.concurrency,
        )
        limits = services_of(request.app.state).settings.sprt
        quota = sprt_quota(
            account.id,
            target.id,
            target.owner_id,
            per_account=limits.per_account,
            per_bot=limits.per_bot,
        )
        try:
            test_id, match_ids = await flow_sprt.create_test(
                pool,
                owner_id=account.id,
                bot_a=data.bot_a,
                bot_b=data.bot_b,
                mode="1v1" if data.players == 2 else "2v2",
                rules=_rules(data),
                params=params,
                deals=data.deals,
                check=quota,
            )
        except SprtQuotaExceeded as exc:
            raise ProblemError(
                429, str(exc), slug="too-many-tests", headers={"Retry-After": str(RETRY_AFTER_S)}
            ) from None
        except RulesError as exc:
            raise rules_problem(exc) from None
        except flow.MirroredDealsRefused as exc:
            raise mirrored_problem(exc, "body.deals") from None
        except flow.FlowError as exc:
            raise flow_problem(exc) from None
        await send_matches(services_of(request.app.state), match_ids)
        return SprtCreated(test_id=test_id, status="running")

    @get(
        "/{test_id:int}",
        operation_id="getTest",
        summary="A test: status, counts, LLR against its bounds, Elo estimate, result",
        responses=problem_responses(400, 404),
    )
    async def get_test(self, pool: NamedDependency[asyncpg.Pool], test_id: SprtId) -> SprtRead:
        test = await db_sprt.get_test(pool, test_id)
        if test is None:
            raise _not_found(test_id)
        return sprt_read(test)

    @post(
        "/{test_id:int}/cancel",
        operation_id="cancelTest",
        summary="Stop your running test: no more pairs; the unplayed ones are cancelled",
        description=(
            "Only the test's owner may cancel it (anyone else: 403). Pairs already stored "
            "stay counted; a pair still being played is not stored. A test that is over is a "
            "409."
        ),
        status_code=200,
        dependencies={"account": Provide(current_account)},
        security=SECURITY,
        responses=problem_responses(400, 401, 403, 404, 409),
    )
    async def cancel_test(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        account: NamedDependency[Account],
        test_id: SprtId,
    ) -> SprtRead:
        try:
            cancelled = await flow_sprt.cancel_test(pool, test_id, account.id)
        except flow_sprt.SprtNotFound:
            raise _not_found(test_id) from None
        except flow_sprt.NotYourTest as exc:
            raise ProblemError(403, str(exc)) from None
        except flow_sprt.SprtStateError as exc:
            raise ProblemError(409, str(exc), slug="test-state") from None
        await stop(services_of(request.app.state), cancelled)  # a pair being played stops
        test = await db_sprt.get_test(pool, test_id)
        assert test is not None
        return sprt_read(test)
