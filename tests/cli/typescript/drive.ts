// Drives Truco Arena through openapi-fetch typed by openapi-typescript's `paths` (api.d.ts, made
// from api-spec/openapi.json by tests/cli/test_typescript_client.py): the quickstart, the ladder
// and /play. `tsc --strict` checks it against the generated types first; then it runs, and
// prints one JSON line: {"calls": N, "failures": [...]}. Every answer must be the documented one.
import createClient from "openapi-fetch";
import type { paths } from "./api";

const base = process.env.TRUCO_URL as string;
const bots = JSON.parse(process.env.TRUCO_BOTS as string) as string[];
const failures: string[] = [];
let calls = 0;

function ok<T>(what: string, answer: { data?: T; error?: unknown; response: Response }): T {
  calls += 1;
  if (answer.data === undefined || !answer.response.ok) {
    failures.push(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
    throw new Error(failures[failures.length - 1]);
  }
  return answer.data;
}

function unique(prefix: string): string {
  return `${prefix}-${Math.random().toString(16).slice(2, 10)}`;
}

async function main(): Promise<void> {
  const anyone = createClient<paths>({ baseUrl: base });
  const account = ok("createAccount", await anyone.POST("/v1/accounts", { body: { name: unique("ts") } }));
  const auth = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${account.api_key}` } });
  const made = [];
  for (const url of bots) {
    made.push(ok("createBot", await auth.POST("/v1/bots", { body: { name: unique("ts-bot"), url } })));
  }
  const cup = ok("createTournament", await auth.POST("/v1/tournaments", {
    body: { name: unique("ts-swiss"), format: "swiss", mode: "1v1", rounds: 1, games_per_match: 1 },
  }));
  for (const bot of made) {
    ok("enterTournament", await auth.POST("/v1/tournaments/{tournament_id}/entries", {
      params: { path: { tournament_id: cup.id } }, body: { bot_id: bot.id },
    }));
  }
  const started = ok("startTournament", await auth.POST("/v1/tournaments/{tournament_id}/start", {
    params: { path: { tournament_id: cup.id } },
  }));
  const shown = ok("getTournament", await anyone.GET("/v1/tournaments/{tournament_id}", {
    params: { path: { tournament_id: cup.id } },
  }));
  if (shown.status !== "finished" || shown.standings.length !== 2) failures.push(`standings: ${shown.status}`);
  const matchId = started.queued[0];
  const match = ok("getMatch", await anyone.GET("/v1/matches/{match_id}", { params: { path: { match_id: matchId } } }));
  if (match.entrants.length !== 2) failures.push("getMatch: entrants");
  const replay = ok("getMatchReplay", await anyone.GET("/v1/matches/{match_id}/replay", {
    params: { path: { match_id: matchId } },
  }));
  if (!("games" in replay) || replay.games.length === 0) failures.push("getMatchReplay: no games");
  const challenge = ok("createChallenge", await auth.POST("/v1/challenges", {
    body: { bot_a: made[0].id, bot_b: made[1].id },
  }));
  ok("getMatch", await anyone.GET("/v1/matches/{match_id}", { params: { path: { match_id: challenge.match_id } } }));
  const rotated = ok("rotateBotSecret", await auth.POST("/v1/bots/{bot_id}/secret", {
    params: { path: { bot_id: made[0].id } }, body: {},
  }));
  if (rotated.signing_secret === made[0].signing_secret) failures.push("rotateBotSecret: same secret");
  const board = ok("getLeaderboard", await anyone.GET("/v1/leaderboards/{mode}", { params: { path: { mode: "1v1" } } }));
  if (!made.every((bot) => board.entries.some((e) => e.bot_id === bot.id))) failures.push("leaderboard");
  // the ladder
  const ladderBot = made[1].id;
  ok("joinLadder", await auth.POST("/v1/ladders/{name}/entries", {
    params: { path: { name: "1v1" } }, body: { bot_id: ladderBot, hourly_cap: 7 },
  }));
  const table = ok("getLadder", await anyone.GET("/v1/ladders/{name}", { params: { path: { name: "1v1" } } }));
  if (!table.entries.some((e) => e.bot_id === ladderBot)) failures.push("getLadder: not on it");
  const changed = ok("updateLadderEntry", await auth.PATCH("/v1/ladders/{name}/entries/{bot_id}", {
    params: { path: { name: "1v1", bot_id: ladderBot } }, body: { hourly_cap: 3 },
  }));
  if (changed.hourly_cap !== 3) failures.push("updateLadderEntry");
  calls += 1;
  const left = await auth.DELETE("/v1/ladders/{name}/entries/{bot_id}", {
    params: { path: { name: "1v1", bot_id: ladderBot } },
  });
  if (left.response.status !== 204) failures.push(`leaveLadder: ${left.response.status}`);
  // /play: a whole match
  const created = ok("createPlay", await auth.POST("/v1/play", { body: { bot_id: ladderBot } }));
  const seat = createClient<paths>({ baseUrl: base, headers: { "X-Play-Token": created.token } });
  let view = created.view;
  let acted = 0;
  while (view.status === "playing") {
    if (view.turn) {
      const first = view.turn.legal_actions[0];
      view = ok("actInPlay", await seat.POST("/v1/play/{play_id}/act", {
        params: { path: { play_id: created.id } },
        body: { number: view.turn.number, action: first.action, card: first.card ?? null },
      }));
      acted += 1;
    } else {
      view = ok("getPlay", await seat.GET("/v1/play/{play_id}", {
        params: { path: { play_id: created.id }, query: { after: view.version } },
      }));
    }
  }
  if (view.status !== "finished" || acted === 0) failures.push(`play: ${view.status} after ${acted}`);
  const played = ok("getPlayReplay", await anyone.GET("/v1/play/{play_id}/replay", {
    params: { path: { play_id: created.id } },
  }));
  if (played.games.length === 0) failures.push("getPlayReplay: no games");
}

main()
  .catch((error: unknown) => { if (!failures.length) failures.push(String(error)); })
  .finally(() => { console.log(JSON.stringify({ calls, failures })); });
