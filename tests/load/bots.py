"""``python -m tests.load.bots N SEED``: N random-strategy SDK bots on 127.0.0.1 in this process.

Prints one JSON line per bot (``{"url", "secret"}``), then ``ready``, and serves until its
stdin closes (the test holds the pipe; a test that dies takes the bots with it)."""

from __future__ import annotations

import json
import secrets
import sys

from arena.client.signing import generate_secret
from arena.sdk import BotServer, strategy_decider


def main() -> None:
    count, seed = int(sys.argv[1]), int(sys.argv[2])
    servers = []
    for k in range(count):
        secret = generate_secret()
        server = BotServer(
            strategy_decider("heuristic" if k % 2 else "random", seed + k),
            name=f"load-{seed + k}-{secrets.token_hex(2)}",
            secret=secret,
            host="127.0.0.1",
            port=0,
        )
        server.start()
        servers.append(server)
        print(json.dumps({"url": server.url, "secret": secret}), flush=True)
    print("ready", flush=True)
    sys.stdin.read()
    for server in servers:
        server.stop()


if __name__ == "__main__":
    main()
