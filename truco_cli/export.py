"""`truco export decisions`: decision rows (JSON lines) from finished matches' replays.

A SOURCE is a replay file (as `truco play` writes or `GET /v1/matches/{id}/replay` returns) or a
tournament's API address (`http://HOST/v1/tournaments/ID`): every finished match of it is
downloaded. Live and unfinished matches are skipped, so only public replays of finished matches
are exported.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx

from arena.replay import Replay, VerifyError, load_replay


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="what", required=True, metavar="WHAT")
    decisions = sub.add_parser(
        "decisions", help="one JSON line per decision a seat made (for imitation learning)"
    )
    decisions.add_argument(
        "sources", nargs="+", metavar="SOURCE", help="replay files or tournament URLs"
    )
    decisions.add_argument("--out", required=True, help="the JSON lines file to write")
    decisions.add_argument(
        "--tensors",
        action="store_true",
        help="add the environment's encoding (observation_tensor, action_mask, action_index)",
    )
    decisions.add_argument("--force", action="store_true", help="overwrite --out if it exists")


class SourceError(Exception):
    pass


def _tournament_replays(url: str, client: httpx.Client) -> Iterator[tuple[str, Replay]]:
    base = url.rstrip("/")
    api_root = base.split("/v1/", 1)[0]
    answer = client.get(base)
    if answer.status_code != 200:
        raise SourceError(f"{url}: HTTP {answer.status_code}")
    body = answer.json()
    if "rounds" not in body:
        raise SourceError(f"{url}: not a tournament (GET /v1/tournaments/ID)")
    for round_ in body["rounds"]:
        for match in round_["matches"]:
            if match.get("bye") or match.get("status") != "finished":
                continue
            replay_url = f"{api_root}/v1/matches/{match['id']}/replay"
            got = client.get(replay_url)
            if got.status_code != 200 or got.json().get("live"):
                continue
            yield replay_url, load_replay(got.content)


def replays(sources: list[str], client: httpx.Client) -> Iterator[tuple[str, Replay]]:
    for source in sources:
        if source.startswith(("http://", "https://")):
            yield from _tournament_replays(source, client)
            continue
        path = Path(source)
        if not path.is_file():
            raise SourceError(f"{source}: no such file")
        yield source, load_replay(path.read_bytes())


def run(args: argparse.Namespace) -> int:
    from truco_env.export import replay_rows

    out = Path(args.out)
    if out.exists() and not args.force:
        print(f"error: {out} exists; choose another --out or add --force", file=sys.stderr)
        return 2
    rows = matches = 0
    tmp = out.with_name(out.name + ".part")
    try:
        with httpx.Client(timeout=30, trust_env=False) as client, tmp.open("w") as handle:
            for _, replay in replays(args.sources, client):
                matches += 1
                for row in replay_rows(replay, tensors=args.tensors):
                    handle.write(json.dumps(row, separators=(",", ":")) + "\n")
                    rows += 1
    except (SourceError, VerifyError, httpx.HTTPError, OSError) as exc:
        tmp.unlink(missing_ok=True)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    os.replace(tmp, out)
    print(f"{rows} decisions from {matches} matches written to {out}")
    return 0
