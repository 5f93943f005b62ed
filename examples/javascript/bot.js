// A Truco Arena bot in JavaScript, with Node's standard library only (node:http, node:crypto).
// It checks every request's Standard Webhooks signature and plays a simple legal strategy.
// The protocol: docs/protocol.md. Run: TRUCO_BOT_SECRET=whsec_... PORT=8080 node bot.js
"use strict";

const http = require("node:http");
const crypto = require("node:crypto");

const NAME = process.env.BOT_NAME || "js-starter";
const HOST = process.env.HOST || "127.0.0.1"; // "0.0.0.0" to be reachable from other machines
const PORT = Number(process.env.PORT || 8080);
const SECRET = process.env.TRUCO_BOT_SECRET || "";
const TOLERANCE_S = 300; // refuse requests older (or newer) than 5 minutes
const MAX_BODY = 1024 * 1024;

// ---------------------------------------------------------------- signatures (protocol.md)

const KEY = SECRET ? Buffer.from(SECRET.replace(/^whsec_/, ""), "base64") : null;
if (SECRET && (KEY.length === 0 || !/^[A-Za-z0-9+/]+=*$/.test(SECRET.replace(/^whsec_/, "")))) {
  console.error("TRUCO_BOT_SECRET must be whsec_ followed by base64");
  process.exit(2);
}

// Why the request must be refused, or null when it is genuine and fresh.
function signatureProblem(headers, body) {
  const id = headers["webhook-id"];
  const stamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !stamp || !signatures) return "unsigned: a webhook-* header is missing";
  if (!/^[0-9]+$/.test(stamp)) return "webhook-timestamp is not a Unix time in seconds";
  if (Math.abs(Date.now() / 1000 - Number(stamp)) > TOLERANCE_S) return "stale timestamp";
  const mac = crypto.createHmac("sha256", KEY).update(`${id}.${stamp}.`).update(body).digest();
  const expected = Buffer.from(mac.toString("base64"));
  let found = false; // several signatures during a key rotation: any v1 match is enough
  for (const entry of signatures.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
    const given = Buffer.from(entry.slice(comma + 1));
    if (given.length === expected.length && crypto.timingSafeEqual(given, expected)) found = true;
  }
  return found ? null : "no signature matches (forged, altered, or another secret)";
}

// ---------------------------------------------------------------- the strategy

// Strength of each card (rules.md R-1): higher wins; equal numbers are a parda.
function strength(card) {
  const special = { "1E": 14, "1B": 13, "7E": 12, "7O": 11 };
  if (card in special) return special[card];
  const byRank = { 3: 10, 2: 9, 1: 8, 12: 7, 11: 6, 10: 5, 7: 4, 6: 3, 5: 2, 4: 1 };
  return byRank[parseInt(card, 10)];
}

// Choose one of legal_actions: flor when it must, envido and truco by the cards, then the
// cheapest card that wins the round, else the weakest.
function decide(request) {
  const obs = request.observation;
  const words = new Map(request.legal_actions.map((a) => [a.action, a]));
  const strong = obs.cards.filter((card) => strength(card) >= 10).length; // threes and better
  if (words.has("flor")) return words.get("flor");
  if (words.has("con_flor_quiero")) return words.get("con_flor_quiero");
  if (words.has("envido") && obs.envido_points >= 28) return words.get("envido");
  if (words.has("quiero")) {
    const truco = words.has("mazo"); // a truco question offers the mazo; envido ones do not
    const good = truco ? strong >= 1 : obs.envido_points >= 27;
    return words.get(good ? "quiero" : "no_quiero");
  }
  if (words.has("truco") && strong >= 2) return { action: "truco", say: "¡Truco!" };
  const plays = request.legal_actions.filter((a) => a.action === "play");
  if (plays.length === 0) return request.legal_actions[0];
  const table = obs.rounds[obs.rounds.length - 1].map(([, card]) => strength(card));
  const best = table.length ? Math.max(...table) : 0;
  plays.sort((a, b) => strength(a.card) - strength(b.card));
  return plays.find((a) => strength(a.card) > best) || plays[0];
}

// ---------------------------------------------------------------- the HTTP server

function reply(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function refuse(req, res, status, why) {
  console.warn(`refused ${req.method} ${req.url}: ${status} ${why}`); // never log the secret
  reply(res, status, { error: why });
}

const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY) {
      refuse(req, res, 413, `body over ${MAX_BODY} bytes`);
      req.destroy();
    } else chunks.push(chunk);
  });
  req.on("end", () => {
    if (res.writableEnded) return;
    const body = Buffer.concat(chunks); // the raw bytes: verify before parsing
    const path = req.url.split("?")[0];
    if (KEY && req.method === "POST") {
      // GET / is signed too, but it only tells the bot's name: like the Python SDK, answer it
      // unchecked, so `curl http://127.0.0.1:8080/` shows whether the bot is up
      const problem = signatureProblem(req.headers, body);
      if (problem) return refuse(req, res, 401, problem);
    }
    if (req.method === "GET" && path === "/") {
      return reply(res, 200, { apiversion: "1", name: NAME, version: "1.0" });
    }
    if (req.method !== "POST" || !["/start", "/act", "/end"].includes(path)) {
      return refuse(req, res, 404, `no endpoint ${req.method} ${path}`);
    }
    let request;
    try {
      request = JSON.parse(body.toString("utf8"));
    } catch (err) {
      return refuse(req, res, 400, `bad JSON: ${err.message}`);
    }
    if (path !== "/act") return reply(res, 200, { ok: true });
    if (!request || !Array.isArray(request.legal_actions) || !request.observation) {
      return refuse(req, res, 400, "an /act body needs observation and legal_actions");
    }
    try {
      return reply(res, 200, decide(request));
    } catch (err) {
      console.error(`decide failed: ${err.stack}`);
      return reply(res, 500, { error: String(err) });
    }
  });
});

server.keepAliveTimeout = 120 * 1000; // the arena keeps its connection open during a match
server.listen(PORT, HOST, () => {
  const { port } = server.address();
  const checking = KEY ? "checking signatures" : "NOT checking signatures: no TRUCO_BOT_SECRET";
  console.log(`bot '${NAME}' listening on http://${HOST}:${port} (${checking})`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
process.on("SIGINT", () => server.close(() => process.exit(0)));
