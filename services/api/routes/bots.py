"""Bots: register (after a handshake through the guarded client), list, read, change, delete."""

from __future__ import annotations

from typing import Annotated

import asyncpg
from litestar import Controller, Request, delete, get, patch, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import JSONBody, Parameter

from arena.client.bot_client import BotClient, ClientConfig, Fault
from arena.client.egress import BadBotUrl, EgressError, EgressPolicy, EgressRefused
from arena.client.signing import InvalidSecret, check_secret, generate_secret, new_secret
from arena.wire.protocol import API_VERSION, BotInfo
from services import flow
from services.api.auth import SECURITY, current_account, require_owner
from services.api.deps import BotClientFactory, send_matches, services_of, stop
from services.api.names import check_name
from services.api.params import BotIdParam
from services.api.problems import FieldError, ProblemError, problem_responses
from services.api.schemas.bots import (
    BotCreate,
    BotCreated,
    BotInterval,
    BotPage,
    BotProfile,
    BotRead,
    BotUpdate,
    SecretRotate,
    SecretRotated,
)
from services.db import bots as db_bots
from services.db import rating_fits as db_fits
from services.db.accounts import Account, DuplicateName
from services.db.bots import Bot
from services.db.rating_fits import StoredInterval
from services.domain import BotStatus, ChallengePolicy
from services.domain.names import refused_characters
from services.flow import ladder as flow_ladder

HANDSHAKE_TIMEOUT_MS = 5000.0


def default_bot_client_factory(url: str, secret: str, policy: EgressPolicy) -> BotClient:
    return BotClient(
        url, secret, config=ClientConfig(timeout_ms=HANDSHAKE_TIMEOUT_MS, policy=policy)
    )


def _handshake_failed(detail: str, slug: str = "bot-handshake-failed") -> ProblemError:
    return ProblemError(
        422,
        detail,
        slug=slug,
        title="The bot URL was not accepted",
        errors=[FieldError(field="body.url", message=detail)],
    )


async def handshake(
    factory: BotClientFactory, url: str, secret: str, policy: EgressPolicy
) -> BotInfo:
    """Check the URL with the egress guard, then ``GET {url}/``; a 422 problem if either fails."""
    client = factory(url, secret, policy)
    try:
        try:
            await client.pin()
        except BadBotUrl as exc:
            raise _handshake_failed(f"the URL is not valid: {exc}", "bad-bot-url") from None
        except EgressRefused as exc:
            raise _handshake_failed(
                f"the platform does not call this address: {exc.reason}", "bot-url-refused"
            ) from None
        except EgressError as exc:
            raise _handshake_failed(f"the URL's host could not be resolved: {exc}") from None
        result = await client.info()
        if isinstance(result, Fault):
            raise _handshake_failed(f"GET {url}/ failed ({result.kind}): {result.detail}")
        info = result.decode(BotInfo)
        if isinstance(info, Fault):
            raise _handshake_failed(f"GET {url}/ did not answer with bot info: {info.detail}")
        if info.apiversion != API_VERSION:
            raise _handshake_failed(
                f"the bot speaks protocol version {info.apiversion!r}; expected {API_VERSION!r}"
            )
        return info
    finally:
        await client.aclose()


def chosen_secret(secret: str | None) -> str:
    """The author's secret if it is strong enough (else a 422 saying what is needed), or a
    fresh one when none was given."""
    if secret is None:
        return new_secret()
    try:
        return check_secret(secret)
    except InvalidSecret as exc:
        raise ProblemError(
            422,
            str(exc),
            slug="weak-signing-secret",
            title="The signing secret is not accepted",
            errors=[FieldError(field="body.signing_secret", message=str(exc))],
        ) from None


def _policy(state: State) -> EgressPolicy:
    return EgressPolicy(allow_loopback=services_of(state).settings.allow_loopback_bots)


_STATUSES: dict[str, BotStatus] = {
    "active": "active",
    "unavailable": "unavailable",
    "deleted": "deleted",
}


def _status(value: str) -> BotStatus:
    return _STATUSES[value]


def _policy_of(bot: Bot) -> ChallengePolicy:
    return "owner_only" if bot.challenges == "owner_only" else "open"


def _intervals(stored: list[StoredInterval]) -> dict[str, BotInterval]:
    return {
        row.mode: BotInterval(
            interval=(round(row.low, 1), round(row.high, 1)),
            los_next=None if row.los_next is None else round(row.los_next, 4),
            next_bot_id=row.next_bot_id,
            next_bot_name=row.next_bot_name,
            fitted_at=row.fitted_at,
        )
        for row in stored
    }


def _profile(
    bot: Bot, rating: dict[str, float], intervals: list[StoredInterval] | None = None
) -> BotProfile:
    return BotProfile(
        id=bot.id,
        owner_id=bot.owner_id,
        name=bot.name,
        status=_status(bot.status),
        created_at=bot.created_at,
        rating=rating,
        open=bot.open,
        challenges=_policy_of(bot),
        deleted_at=bot.deleted_at,
        min_timeout_ms=bot.min_timeout_ms,
        intervals=_intervals(intervals or []),
    )


def _read(bot: Bot) -> BotRead:
    return BotRead(
        id=bot.id,
        owner_id=bot.owner_id,
        name=bot.name,
        url=bot.url,
        status=_status(bot.status),
        created_at=bot.created_at,
        updated_at=bot.updated_at,
        open=bot.open,
        challenges=_policy_of(bot),
        min_timeout_ms=bot.min_timeout_ms,
    )


def _not_found(bot_id: int) -> ProblemError:
    return ProblemError(404, f"there is no bot {bot_id}", slug="bot-not-found")


def _too_many_bots(most: int) -> ProblemError:
    return ProblemError(
        409,
        f"an account may have at most {most} bots (TRUCO_BOTS_PER_ACCOUNT) and this one has "
        f"{most}; delete one before registering another",
        slug="too-many-bots",
    )


def _name_taken(name: str | None) -> ProblemError:
    return ProblemError(
        409,
        f"a bot named {name!r} already exists (or one too like it: names are unique ignoring "
        "case and look-alike characters)",
        slug="name-taken",
    )


async def _owned_bot(
    pool: NamedDependency[asyncpg.Pool], bot_id: int, account: NamedDependency[Account]
) -> Bot:
    bot = await db_bots.get_bot(pool, bot_id)
    if bot is None or bot.status == "deleted":
        raise _not_found(bot_id)
    require_owner(account, bot.owner_id, "only the bot's owner may change or delete it")
    return bot


_auth = {"account": Provide(current_account)}


class BotController(Controller):
    path = "/v1/bots"
    tags = ("bots",)

    @post(
        "/",
        operation_id="createBot",
        summary="Register a bot",
        description=(
            "Calls GET {url}/ through the guarded client first; a URL that fails the handshake "
            "or whose address the platform refuses is a 422. Give your own `signing_secret` "
            "(start the bot with it first, then register: its first match is signed with it) "
            "or let the platform make one; a weak one is a 422 saying what is needed. The "
            "signing secret is in this response only (`Cache-Control: no-store`). `open` "
            "(default false): anyone may enter the bot into their tournaments. `challenges` "
            "(default open): `owner_only` refuses challenges from other accounts' bots. "
            "`min_timeout_ms` (optional, 10 to 60000): the least per-call timeout the bot "
            "accepts in events of other organisers; entering it into an event with a lower "
            "`timeout_ms` is a 422 (`/problems/settings-refused`). An "
            "account has at most TRUCO_BOTS_PER_ACCOUNT live bots (default 50): one more is a "
            "409 (`/problems/too-many-bots`)."
        ),
        status_code=201,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401, 409, 413, 415, 422),
    )
    async def create_bot(
        self,
        request: Request[object, object, State],
        data: JSONBody[BotCreate],
        account: NamedDependency[Account],
    ) -> BotCreated:
        check_name(data.name)
        svc = services_of(request.app.state)
        most = svc.settings.sizes.bots_per_account
        assert svc.pool is not None
        if await db_bots.live_bot_count(svc.pool, account.id) >= most:  # before the handshake
            raise _too_many_bots(most)
        secret = chosen_secret(data.signing_secret)
        await handshake(svc.bot_client_factory, data.url, secret, _policy(request.app.state))
        box = svc.secret_box
        assert svc.pool is not None
        async with svc.pool.acquire() as conn:
            try:
                bot = await db_bots.create_bot(
                    conn,
                    owner_id=account.id,
                    name=data.name,
                    url=data.url,
                    encrypt_secret=lambda bot_id: box.encrypt(secret, bot_id),
                    key_id=box.key_id,
                    open=data.open,
                    challenges=data.challenges,
                    min_timeout_ms=data.min_timeout_ms,
                    most=most,
                )
            except DuplicateName:
                raise _name_taken(data.name) from None
            except db_bots.TooManyBots as exc:
                raise _too_many_bots(exc.most) from None
        return BotCreated(
            id=bot.id,
            name=bot.name,
            url=bot.url,
            status=_status(bot.status),
            signing_secret=secret,
            open=bot.open,
            challenges=_policy_of(bot),
            min_timeout_ms=bot.min_timeout_ms,
        )

    @post(
        "/{bot_id:int}/secret",
        operation_id="rotateBotSecret",
        summary="Rotate a bot's signing secret (owner only)",
        description=(
            "The new secret is `signing_secret` from the body if given (a weak one is a 422); "
            "send `{}` for a fresh one. It is answered this once (`Cache-Control: no-store`). "
            "During the grace period (TRUCO_SECRET_GRACE_S, default 24 h) every request to the bot carries "
            "two signatures in `webhook-signature`, with the new and the previous secret, so "
            "the bot may switch to the new secret at any moment in that window. A second "
            "rotation ends the grace period of the secret before."
        ),
        status_code=200,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401, 403, 404, 413, 415, 422),
    )
    async def rotate_secret(
        self,
        request: Request[object, object, State],
        bot_id: BotIdParam,
        account: NamedDependency[Account],
        data: JSONBody[SecretRotate],
    ) -> SecretRotated:
        svc = services_of(request.app.state)
        assert svc.pool is not None
        await _owned_bot(svc.pool, bot_id, account)
        secret = chosen_secret(data.signing_secret)
        box = svc.secret_box
        until = await db_bots.rotate_secret(
            svc.pool,
            bot_id,
            encrypted=box.encrypt(secret, bot_id),
            key_id=box.key_id,
            grace_s=svc.settings.secrets.grace_s,
        )
        if until is None:
            raise _not_found(bot_id)
        return SecretRotated(id=bot_id, signing_secret=secret, previous_secret_valid_until=until)

    @get(
        "/",
        operation_id="listBots",
        summary="List bots, newest first",
        description=(
            "Keyset pages: pass the response's next_cursor as cursor; null means done. "
            "`owner` keeps one account's bots; `name` finds a bot by name (ignoring case)."
        ),
        responses=problem_responses(400),
    )
    async def list_bots(
        self,
        pool: NamedDependency[asyncpg.Pool],
        limit: Annotated[int, Parameter(ge=1, le=100, description="page size")] = 20,
        cursor: Annotated[
            int | None,
            Parameter(ge=1, le=2**63 - 1, description="the next_cursor of the previous page"),
        ] = None,
        owner: Annotated[
            int | None, Parameter(ge=1, le=2**63 - 1, description="only this account's bots")
        ] = None,
        name: Annotated[
            str | None,
            Parameter(min_length=1, max_length=64, description="only the bot of this name"),
        ] = None,
    ) -> BotPage:
        if name is not None and refused_characters(name):
            return BotPage(items=[], next_cursor=None)  # no bot's name holds such characters
        page, more = await db_bots.list_bots(
            pool, limit=limit, cursor=cursor, owner_id=owner, name=name
        )
        ids = [bot.id for bot in page]
        ratings, intervals = await db_bots.ratings(pool, ids), await db_fits.intervals(pool, ids)
        items = [_profile(bot, ratings[bot.id], intervals[bot.id]) for bot in page]
        return BotPage(items=items, next_cursor=page[-1].id if more and page else None)

    @get(
        "/{bot_id:int}",
        operation_id="getBot",
        summary="A bot's public profile",
        responses=problem_responses(404),
    )
    async def get_bot(self, pool: NamedDependency[asyncpg.Pool], bot_id: BotIdParam) -> BotProfile:
        bot = await db_bots.get_bot(pool, bot_id)
        if bot is None:
            raise _not_found(bot_id)
        ratings = await db_bots.ratings(pool, [bot.id])
        intervals = await db_fits.intervals(pool, [bot.id])
        return _profile(bot, ratings[bot.id], intervals[bot.id])

    @patch(
        "/{bot_id:int}",
        operation_id="updateBot",
        summary="Change a bot's name, URL, openness, challenge policy or minimum timeout (owner only)",
        description=(
            "A new URL re-runs the handshake. `open: true` lets anyone enter the bot into "
            "their tournaments; `open: false` also withdraws it from the registering events "
            "of other organisers that someone else than you entered it into. "
            '`challenges: "owner_only"` refuses challenges from other '
            "accounts' bots (403). `min_timeout_ms`: the least per-call timeout the bot "
            "accepts in events of other organisers (checked again when an event starts: an "
            "entry under a higher minimum is withdrawn then)."
        ),
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401, 403, 404, 409, 413, 415, 422),
    )
    async def update_bot(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        bot_id: BotIdParam,
        data: JSONBody[BotUpdate],
        account: NamedDependency[Account],
    ) -> BotRead:
        check_name(data.name)
        bot = await _owned_bot(pool, bot_id, account)
        if data.url is not None and data.url != bot.url:
            svc = services_of(request.app.state)
            # the handshake's signature uses a throwaway secret: GET / carries no game data
            await handshake(
                svc.bot_client_factory, data.url, generate_secret(), _policy(request.app.state)
            )
        try:
            updated = await db_bots.update_bot(
                pool,
                bot_id,
                name=data.name,
                url=data.url,
                open=data.open,
                challenges=data.challenges,
                min_timeout_ms=data.min_timeout_ms,
            )
        except DuplicateName:
            raise _name_taken(data.name) from None
        if updated is None:
            raise _not_found(bot_id)
        if data.open is False:  # closed: it leaves others' events it did not enter itself
            await flow.bot_closed(pool, bot_id, updated.owner_id)
        return _read(updated)

    @delete(
        "/{bot_id:int}",
        operation_id="deleteBot",
        summary="Delete a bot (owner only)",
        description=(
            "The row stays (status 'deleted') so its matches and ratings still resolve. The bot "
            "forfeits its unfinished matches in running tournaments; the events go on."
        ),
        status_code=204,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401, 403, 404),
    )
    async def delete_bot(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        bot_id: BotIdParam,
        account: NamedDependency[Account],
    ) -> None:
        await _owned_bot(pool, bot_id, account)
        if not await db_bots.soft_delete_bot(pool, bot_id):
            raise _not_found(bot_id)
        # it forfeits what is left of its running tournaments (a match being played stops);
        # the events go on
        withdrawal = await flow.withdraw_bot(pool, bot_id)
        await stop(services_of(request.app.state), withdrawal.forfeited)
        await send_matches(services_of(request.app.state), withdrawal.ready)
        await flow_ladder.bot_deleted(pool, bot_id)  # and leaves the ladders
