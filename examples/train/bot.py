"""Serve a trained policy (``train.py --out policy.npz``) as a Truco Arena bot with the SDK.

TRUCO_BOT_SECRET=whsec_... PORT=8090 python examples/train/bot.py policy.npz
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from policy import LinearPolicy

from arena.sdk import ActRequest, Decide, serve
from engine import Action


def decider(policy: LinearPolicy) -> Decide:
    def decide(req: ActRequest) -> Action:
        return policy.best(req.observation, list(req.legal_actions))

    return decide


def main() -> int:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "policy.npz")
    if not path.is_file():
        print(
            f"error: no policy at {path}; train one with examples/train/train.py", file=sys.stderr
        )
        return 2
    port = int(os.environ.get("PORT", "8090"))
    serve(
        decider(LinearPolicy.load(path)),
        name="trained-linear",
        port=port,
        secret=os.environ.get("TRUCO_BOT_SECRET"),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
