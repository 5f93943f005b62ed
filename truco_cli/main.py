"""The `truco` command: a thin dispatcher over one module per subcommand.

Each subcommand module exposes ``add_arguments(parser)`` and ``run(args) -> int``. A module is
imported only when its command runs, so a slow import in one command never slows another.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from truco_cli.errors import CommandError, report

# command name -> (module path, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "scenario": ("truco_cli.scenario", "run golden scenario files (docs/scenarios.md)"),
    "bench": ("truco_cli.bench", "play random-vs-random games and report hands per second"),
    "demo": ("truco_cli.demo", "play one demo game between two built-in agents and print it"),
    "pair": ("truco_cli.pair", "pair the next Swiss round of a tournament file (JSON)"),
    "standings": ("truco_cli.standings", "print Swiss standings with every tiebreak (JSON)"),
    "play": ("truco_cli.play", "run a match between two bots locally and write its replay"),
    "sprt": ("truco_cli.sprt", "test whether one bot is stronger than another (SPRT on pairs)"),
    "replay": ("truco_cli.replay", "verify replay files by re-simulating them"),
    "verify": (
        "truco_cli.verify",
        "check a whole tournament: seeds, replays, results, standings, Elo",
    ),
    "bot": ("truco_cli.bot", "serve a bot, make a secret, manage your bots on the platform"),
    "check": ("truco_cli.check", "probe a bot for conformance with the bot protocol"),
    "export": ("truco_cli.export", "export decision datasets (JSON lines) from finished replays"),
    "account": ("truco_cli.account", "create your account on a platform (stores its API key)"),
    "login": ("truco_cli.login", "store the platform URL and an API key you already have"),
    "tournament": ("truco_cli.tournament", "create, enter, start, watch and show tournaments"),
    "challenge": ("truco_cli.challenge", "play an unrated match between your bot and another"),
    "test": ("truco_cli.sprt_platform", "SPRT tests on the platform: create, show, watch, cancel"),
    "match": ("truco_cli.match", "a match's result and cause, and its replay saved to a file"),
    "leaderboard": ("truco_cli.leaderboard", "the Elo leaderboard of a mode"),
    "ladder": ("truco_cli.ladder", "put your bot on a ladder that keeps it playing; the table"),
    "report": ("truco_cli.report", "report a bot or a name to the platform's admins"),
    "admin": ("truco_cli.admin", "moderation: admins, disqualify, suspend, rename, reports"),
}


def _top_parser() -> argparse.ArgumentParser:
    lines = "\n".join(f"  {name:<13} {help_}" for name, (_, help_) in COMMANDS.items())
    return argparse.ArgumentParser(
        prog="truco",
        description="Truco Arena: engine, bots, tournaments and platform tools.",
        epilog=f"commands:\n{lines}\n\nRun `truco COMMAND --help` for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or args_list[0] not in COMMANDS:
        parser = _top_parser()
        parser.add_argument("command", choices=sorted(COMMANDS), metavar="COMMAND")
        parser.parse_args(args_list[:1])  # prints help or a clear error and exits
        return 2
    name = args_list[0]
    module_path, help_ = COMMANDS[name]
    module = importlib.import_module(module_path)
    parser = argparse.ArgumentParser(prog=f"truco {name}", description=help_)
    module.add_arguments(parser)
    args = parser.parse_args(args_list[1:])
    try:
        return int(module.run(args))
    except CommandError as exc:  # the platform commands' errors: title and detail, no traceback
        return report(exc, as_json=bool(getattr(args, "json", False)))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
