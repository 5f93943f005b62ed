"""A trusted worker with a test-only hook: ``python -m tests.crash.hooked_worker worker ...``.

With ``TRUCO_TEST_BLOCK_AFTER_RECORD=<file>`` set, the first ``flow.record_result`` that
completes a round (it returns the next round's matches) has COMMITTED when the hook runs: the
hook writes ``<pid> <match id> <next ids>`` to the file and blocks, so the next round is never
sent. The test then kills the worker there, deterministically between storing a result and
sending the round it paired. Nothing of this is in the production code.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

from services import flow

_original = flow.record_result
_fired = threading.Event()


async def record_result_then_block(*args: Any, **kwargs: Any) -> flow.Recorded:
    recorded = await _original(*args, **kwargs)
    next_ids = recorded.next_ids
    marker = os.environ.get("TRUCO_TEST_BLOCK_AFTER_RECORD", "")
    if marker and next_ids and not _fired.is_set():
        _fired.set()
        match_id = args[1] if len(args) > 1 else kwargs["match_id"]
        with open(marker + ".tmp", "w") as handle:
            handle.write(f"{os.getpid()} {match_id} {','.join(map(str, next_ids))}\n")
        os.replace(marker + ".tmp", marker)
        while True:  # committed; the next round is never sent from here
            time.sleep(3600)
    return recorded


flow.record_result = record_result_then_block  # type: ignore[assignment]

if __name__ == "__main__":
    from services.worker.celery_app import app

    app.worker_main(sys.argv[1:])
