"""Challenges: a casual, unrated match of your bot against another, queued at once."""

from __future__ import annotations

import asyncpg
from litestar import Controller, Request, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import JSONBody

from arena.game.deals import MEMORY_RISK
from engine.errors import RulesError
from services import flow
from services.api.auth import SECURITY, current_account
from services.api.deps import send_matches, services_of
from services.api.problems import ProblemError, problem_responses
from services.api.routes.bodies import rules_problem
from services.api.routes.head_to_head import caller_may_pit
from services.api.routes.tournaments import flow_problem, mirrored_problem, too_long_problem
from services.api.schemas.matches import ChallengeCreate, ChallengeCreated
from services.db import matches as db_matches
from services.db.accounts import Account
from services.domain import seeds
from services.flow.challenge_quota import RETRY_AFTER_S, QuotaExceeded, challenge_quota


class ChallengeController(Controller):
    path = "/v1/challenges"
    tags = ("matches",)

    @post(
        "/",
        operation_id="createChallenge",
        summary="Challenge another bot with one of yours (unrated)",
        description=(
            "`bot_a` must be yours and `bot_b` active; the match is queued at once. Follow it "
            "at GET /v1/matches/{match_id}. It plays under the default timeout (1 s) and time "
            "bank (30 s): a `games_per_match` whose worst case outlasts the workers' cap on a "
            "match is a 422 (`/problems/match-too-long`). A bot whose owner set "
            "`challenges: owner_only` refuses other accounts' challenges (403). Quotas "
            "(defaults): an account may have 8 open (unfinished) challenges and a bot may "
            "receive 4 from other accounts (settings TRUCO_OPEN_CHALLENGES_PER_ACCOUNT and "
            "TRUCO_OPEN_CHALLENGES_PER_BOT); over either is a 429 (`/problems/too-many-challenges`) with Retry-After. "
            "`deals` is `independent` by default; `mirrored` is accepted only when both bots "
            "are yours (otherwise a 422, `/problems/mirrored-deals-refused`), because "
            f"{MEMORY_RISK}. The answer carries `seed_commitment`, the SHA-256 commitment to "
            "the challenge's secret master seed, from which its seed is derived; GET "
            "/v1/matches/{match_id} reveals both once the match is over (docs/verify.md)."
        ),
        status_code=202,
        dependencies={"account": Provide(current_account)},
        security=SECURITY,
        responses=problem_responses(401, 403, 404, 409, 413, 415, 422, 429),
    )
    async def create_challenge(
        self,
        request: Request[object, object, State],
        data: JSONBody[ChallengeCreate],
        pool: NamedDependency[asyncpg.Pool],
        account: NamedDependency[Account],
    ) -> ChallengeCreated:
        target = await caller_may_pit(
            pool,
            account,
            data.bot_a,
            data.bot_b,
            refused=f"bot {data.bot_b} accepts challenges only from its owner's bots",
        )
        limits = services_of(request.app.state).settings.challenges
        quota = challenge_quota(
            account.id,
            target.id,
            target.owner_id,
            per_account=limits.per_account,
            per_bot=limits.per_bot,
        )
        try:
            match_id = await flow.create_challenge(
                pool,
                data.bot_a,
                data.bot_b,
                mode=data.mode,
                rules=data.rules or {},
                games_per_match=data.games_per_match,
                rated=False,
                check=quota,
                deals=data.deals,
            )
        except QuotaExceeded as exc:
            raise ProblemError(
                429,
                str(exc),
                slug="too-many-challenges",
                headers={"Retry-After": str(RETRY_AFTER_S)},
            ) from None
        except RulesError as exc:
            raise rules_problem(exc) from None
        except flow.SettingsTooLong as exc:
            raise too_long_problem(exc) from None
        except flow.MirroredDealsRefused as exc:
            raise mirrored_problem(exc, "body.deals") from None
        except flow.FlowError as exc:
            raise flow_problem(exc) from None
        match = await db_matches.get_match(pool, match_id)
        assert match is not None and match.master_seed is not None
        await send_matches(services_of(request.app.state), [match_id])
        return ChallengeCreated(
            match_id=match_id,
            status="pending",
            seed_commitment=seeds.commitment(match.master_seed),
        )
