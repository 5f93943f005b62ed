"""`truco bot serve --strategy NAME --port P`: serve a built-in strategy over protocol v1."""

from __future__ import annotations

import argparse
import contextlib
import sys

from arena.bot_secret import SecretSourceError, load_secret
from arena.bots import BUILTINS, UnknownStrategy
from arena.sdk import BotServer, strategy_decider
from arena.signing import InvalidSecret


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="bot_command", metavar="SUBCOMMAND", required=True)
    serve = sub.add_parser(
        "serve",
        help="serve a built-in strategy over HTTP (bot protocol v1)",
        description="Serve a built-in strategy over HTTP as a protocol v1 bot.",
    )
    serve.add_argument(
        "--strategy",
        default="heuristic",
        help=f"built-in strategy: {', '.join(sorted(BUILTINS))} (default heuristic)",
    )
    serve.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: any free)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument(
        "--secret",
        help="whsec_... signing secret; requests without a valid signature get 401 "
        "(default: --secret-file, else $TRUCO_BOT_SECRET; none: signatures are not checked)",
    )
    serve.add_argument(
        "--secret-file",
        metavar="FILE",
        help="read the secret from FILE (one line; it must be mode 0600)",
    )
    serve.add_argument("--name", help="the bot's name in its info document (default: builtin-NAME)")
    serve.add_argument("--seed", type=int, help="seed of the strategy's choices (default random)")


def make_server(args: argparse.Namespace) -> BotServer:
    """The server `truco bot serve` runs (not started); raises on a bad strategy or secret."""
    return BotServer(
        strategy_decider(args.strategy, args.seed),
        name=args.name or f"builtin-{args.strategy}",
        author="Truco Arena",
        secret=load_secret(args.secret, args.secret_file),
        host=args.host,
        port=args.port,
    )


def run(args: argparse.Namespace) -> int:
    if args.bot_command != "serve":  # argparse allows only "serve"; kept for clarity
        print(f"unknown bot subcommand {args.bot_command!r}", file=sys.stderr)
        return 2
    try:
        server = make_server(args)
    except (UnknownStrategy, InvalidSecret, SecretSourceError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    checking = "checking signatures" if server.secret else "not checking signatures: no secret"
    print(
        f"serving strategy {args.strategy!r} as {server.info.name!r} on {server.url} "
        f"({checking}); Ctrl-C to stop",
        flush=True,
    )
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0
