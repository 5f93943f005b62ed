"""``python -m tests.reliability.noisy TIMEOUT_MS SPEC``: bad bots and their good opponents in a
process of their own, as they would be on other machines.

SPEC is a JSON list of ``[mode, huge_rate or null]``; the signing secret of the good opponents
comes in ``TRUCO_BOT_SECRET``. Prints one JSON line per bad bot (``{"bad": url, "opponent":
url}``), then ``ready``, and serves until its stdin closes (the test holds the pipe, so a test
that dies takes the bots with it). Keeping the bots' own CPU (a bad bot streaming 10 MB as fast
as the socket takes it, the opponents' strategy) out of the test process lets the test measure
what the bad bots cost the platform alone."""

from __future__ import annotations

import json
import os
import sys
from contextlib import ExitStack

from arena.sdk import BotServer, strategy_decider
from tests.reliability.badbot import BadBot


def main() -> None:
    timeout_ms, spec = int(sys.argv[1]), json.loads(sys.argv[2])
    secret = os.environ["TRUCO_BOT_SECRET"]
    with ExitStack() as stack:
        for k, (mode, rate) in enumerate(spec):
            bad = stack.enter_context(BadBot(mode, timeout_ms=timeout_ms, huge_rate=rate))
            opponent = BotServer(
                strategy_decider("heuristic", 20 + k), name=f"good-{20 + k}", secret=secret
            )
            opponent.start()
            stack.callback(opponent.stop)
            print(json.dumps({"bad": bad.url, "opponent": opponent.url}), flush=True)
        print("ready", flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
