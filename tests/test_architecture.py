"""The import graph of the source packages: no cycle, and every import points down.

Every ``import`` and ``from ... import`` in the source packages counts, wherever it is written:
at module level, inside a function, under ``TYPE_CHECKING``; so does ``importlib.import_module``
of a module named by a literal string. The packages are layered
``engine <- arena <- truco_env <- services <- truco_cli``; inside ``services`` the rooms are
below, and so are ``arena``'s (docs/architecture.md describes them). A new folder of
``services`` or ``arena`` must be given a room here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# each may import only those before it
PACKAGES = ("engine", "arena", "truco_env", "services", "truco_cli")

# services: each folder is a room (docs/architecture.md); a module's room is the innermost folder
# named here that it is in, one line per folder. ``services`` itself is only the package's
# ``__init__``; a module loose in ``services/`` has no room, and a test fails on it.
ROOMS = {
    "base": "base",  # settings and plumbing
    "metrics": "base",  # Prometheus metrics: plumbing every process counts into
    "domain": "pure",  # the platform's domain words, ratings, names, seeds
    "tournaments": "pure",  # formats, pairing, standings
    "ladder": "pure",  # the ladder's matchmaker and its words
    "db": "db",
    "flow": "flow",
    "live": "live",  # the live feed: its items, the writer's batches, the readers
    "live.feed": "pure",  # its keys and typed items: plain data (the API's bodies use them)
    "play": "play",  # /play sessions in Redis: their state, the player, read by every API
    "play.items": "pure",  # a session's plain data: log items, the order, the seat's snapshot
    "worker": "worker",  # what the worker processes share: the app, names, messages, senders
    "worker.matches": "bot-calling",  # the bot-calling worker (queues matches, ladder)
    "worker.results": "trusted",  # the trusted worker (queue results)
    "worker.celery_app": "boot",  # the ``celery -A`` target: every task module, registered
    # the API: its shared plumbing at the root (dependencies, problems, parameters, names, the
    # bearer check), the HTTP guard, the bodies, and the routes with what composes them
    "api": "api-base",
    "api.guard": "http-guard",  # what a request passes before a route: caps, limits, headers
    "api.schemas": "api-schemas",  # request and response bodies: plain structs
    "api.routes": "api",  # one module per resource
    "api.sse": "api",  # the live streams' frames and per-process feeds
    "api.play_sessions": "api",  # /play's sessions as an API process reads them from Redis
    "api.app": "api",  # create_api
    "api.spec": "api",  # the OpenAPI document
    "api.serve": "api",  # uvicorn with the server's limits
    "api.ops": "api",  # the operators': GET /metrics, every request counted and timed
    "web": "web",
    "launch": "app",  # make run, the ASGI app, the house bots, embedded servers
}
_BELOW = {
    "pure": set[str](),
    "base": set[str](),
    # the live feed's writer (the bot-calling worker) and readers (the API, the pages) share it;
    # it reaches no database
    "live": {"pure", "base"},
    # a /play session's state in Redis: written by its player (the bot-calling worker), read
    # by every API process, ended by the trusted worker; it reaches no database
    "play": {"pure", "base"},
    "db": {"pure", "base"},
    "flow": {"db", "pure", "base"},
    # the worker processes: what they share reaches no database; each imports only that and
    # its own folder (and only the trusted one the database)
    "worker": {"live", "pure", "base"},
    "bot-calling": {"worker", "live", "play", "pure", "base"},
    "trusted": {"worker", "live", "play", "flow", "db", "pure", "base"},
    "boot": {"bot-calling", "trusted", "worker", "live", "play", "flow", "db", "pure", "base"},
    "api-schemas": {"pure", "base"},
    "api-base": {"trusted", "worker", "live", "play", "flow", "db", "pure", "base"},
    "http-guard": {"api-base", "db", "play", "pure", "base"},
    "api": {
        "http-guard",
        "api-base",
        "api-schemas",
        "trusted",
        "worker",
        "live",
        "play",
        "flow",
        "db",
        "pure",
        "base",
    },
    "web": {
        "api",
        "http-guard",
        "api-base",
        "api-schemas",
        "trusted",
        "worker",
        "live",
        "play",
        "flow",
        "db",
        "pure",
        "base",
    },
    "app": {
        "web",
        "api",
        "http-guard",
        "api-base",
        "api-schemas",
        "boot",
        "bot-calling",
        "trusted",
        "worker",
        "live",
        "play",
        "flow",
        "db",
        "pure",
        "base",
    },
}
MAY_IMPORT = {room: below | {room} for room, below in _BELOW.items()}

# arena: each folder is a room, and may import only the rooms named here (and itself); the
# engine is below them all. ``arena`` itself is only the package's ``__init__``.
ARENA_BELOW = {
    "wire": set[str](),  # the bot protocol's own structs, messages, fault kinds, OpenAPI
    "game": set[str](),  # the game boundary, Truco behind it, deals, narration
    "bots": set[str](),  # the built-in strategies
    "luck": set[str](),  # the luck model: what a deal was worth, from the engine's events
    "client": {"wire"},  # the guarded HTTP client and a bot connection
    "sdk": {"client", "wire", "bots"},  # the kit a bot is written with
    "match": {"client", "game", "wire", "sdk", "luck"},  # the runner, judge, replay, verifier
    "conformance": {"client", "game", "match", "wire"},  # truco check
    "sprt": {"match", "luck"},  # the SPRT statistics and a pair's (luck-adjusted) score
}

Graph = Mapping[str, Mapping[str, int]]  # module -> {imported module: first line}


def modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _resolve(name: str, known: Mapping[str, Path]) -> str | None:
    """The known module ``name`` refers to (``a.b.func`` -> ``a.b``), or None if outside."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _is_import_module(func: ast.expr) -> bool:
    """``importlib.import_module`` or a bare ``import_module``."""
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module"
    return isinstance(func, ast.Name) and func.id == "import_module"


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, dict[str, int]]:
    known = modules(root, packages)
    graph: dict[str, dict[str, int]] = {}
    for module, path in known.items():
        edges: dict[str, int] = {}
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.Call) and _is_import_module(node.func):
                if node.args and isinstance(node.args[0], ast.Constant):
                    names = [str(node.args[0].value)]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                # ``from a import b``: the module a.b if there is one, else a itself
                names = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
                ]
            for name in names:
                target = _resolve(name, known)
                if target is not None and target != module:
                    edges.setdefault(target, node.lineno)
        graph[module] = edges
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph), None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def room(module: str) -> str | None:
    """The room of a ``services`` module: its folder's, ``base`` for the package itself."""
    parts = module.split(".")
    if parts[0] != "services":
        return None
    for end in range(len(parts), 1, -1):
        found = ROOMS.get(".".join(parts[1:end]))
        if found is not None:
            return found
    return "base" if len(parts) == 1 else None


def arena_room(module: str) -> str | None:
    """The room of an ``arena`` module: its folder (``arena`` for the package itself)."""
    parts = module.split(".")
    if parts[0] != "arena":
        return None
    if len(parts) == 1:
        return "arena"
    return parts[1] if parts[1] in ARENA_BELOW else None


def upward_imports(graph: Graph, paths: Mapping[str, Path], root: Path = ROOT) -> list[str]:
    """Every import that points up a layer (between packages) or out of its room's reach."""
    wrong = []
    for module, edges in sorted(graph.items()):
        for target, line in sorted(edges.items()):
            where = f"{paths[module].relative_to(root)}:{line}: {module} imports {target}"
            top, target_top = module.split(".")[0], target.split(".")[0]
            if PACKAGES.index(target_top) > PACKAGES.index(top):
                wrong.append(f"{where} ({target_top} is above {top})")
            elif top == target_top == "services":
                here, there = room(module), room(target)
                if here is not None and there is not None and there not in MAY_IMPORT[here]:
                    wrong.append(f"{where} (room {here} may not import room {there})")
            elif top == target_top == "arena":
                here, there = arena_room(module), arena_room(target)
                allowed = ARENA_BELOW.get(here or "", set[str]()) | {here}
                if here is not None and there is not None and there not in allowed:
                    wrong.append(f"{where} (arena room {here} may not import room {there})")
    return wrong


def test_the_source_packages_have_no_import_cycle() -> None:
    found = cycles(import_graph(ROOT, PACKAGES))
    assert found == [], "import cycles (function-local imports count): " + "; ".join(
        " <-> ".join(c) for c in found
    )


def test_every_import_points_down() -> None:
    paths = modules(ROOT, PACKAGES)
    assert upward_imports(import_graph(ROOT, PACKAGES), paths) == []


def test_every_services_module_has_a_room() -> None:
    unplaced = [m for m in modules(ROOT, ("services",)) if room(m) is None]
    assert unplaced == []


def test_every_arena_module_has_a_room() -> None:
    unplaced = [m for m in modules(ROOT, ("arena",)) if arena_room(m) is None]
    assert unplaced == []


def test_persistence_does_not_decode_replays() -> None:
    """``services.db`` stores and returns a replay as its JSON document; decoding it
    (``arena.match.replay``) is for the rooms above. (The pure planner taking no database row
    type is the rooms' rule: ``services.tournaments`` may import no database module.)"""
    graph = import_graph(ROOT, PACKAGES)
    decoding = [
        m for m, edges in sorted(graph.items()) if room(m) == "db" and "arena.match.replay" in edges
    ]
    assert decoding == []


def test_the_checks_catch_a_hidden_cycle_and_an_upward_import(tmp_path: Path) -> None:
    """The checker itself: a cycle through a function-local import, an engine module importing
    arena, a db module importing flow by ``importlib.import_module`` and arena's wire importing
    its client are all reported."""
    for package, files in {
        "engine": {"a.py": "def f():\n    from engine import b\n", "b.py": "import engine.a\n"},
        "arena": {"c.py": "from engine.a import f\n"},
    }.items():
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        for name, text in files.items():
            (tmp_path / package / name).write_text(text)
    (tmp_path / "engine" / "d.py").write_text("from arena import c\n")
    for room, name, text in [
        ("client", "y.py", "from arena.wire import x\n"),
        ("wire", "x.py", "def f():\n    from arena.client.y import g\n"),
    ]:
        (tmp_path / "arena" / room).mkdir()
        (tmp_path / "arena" / room / "__init__.py").write_text("")
        (tmp_path / "arena" / room / name).write_text(text)
    (tmp_path / "services").mkdir()
    (tmp_path / "services" / "__init__.py").write_text("")
    (tmp_path / "services" / "flow.py").write_text("def f():\n    import services.web\n")
    (tmp_path / "services" / "web.py").write_text("from services import flow\n")
    (tmp_path / "services" / "db.py").write_text(
        "import importlib\n\ndef f():\n    return importlib.import_module('services.flow')\n"
    )
    packages = ("engine", "arena", "services")
    graph = import_graph(tmp_path, packages)
    assert sorted(cycles(graph)) == [
        ["arena.client.y", "arena.wire.x"],
        ["engine.a", "engine.b"],
        ["services.flow", "services.web"],
    ]
    assert upward_imports(graph, modules(tmp_path, packages), tmp_path) == [
        "arena/wire/x.py:2: arena.wire.x imports arena.client.y (arena room wire may not import"
        " room client)",
        "engine/d.py:1: engine.d imports arena.c (arena is above engine)",
        "services/db.py:4: services.db imports services.flow (room db may not import room flow)",
        "services/flow.py:2: services.flow imports services.web (room flow may not import room web)",
    ]


def _reachable(graph: Graph, start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for target in graph.get(todo.pop(), {}):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_truco_verify_imports_no_workflow_or_database_module() -> None:
    """``truco verify`` checks an export with the same pure code the platform ranks and derives
    with, and nothing that reaches a database, a worker or the API (even indirectly)."""
    graph = import_graph(ROOT, PACKAGES)
    reached = _reachable(graph, "truco_cli.verify_event")
    assert "services.tournaments.ranked" in reached and "services.domain.result" in reached
    impure = sorted(m for m in reached if room(m) in {"db", "flow", "worker", "api", "web", "app"})
    assert impure == []


def external_imports(path: Path) -> set[str]:
    """The top-level names of every package ``path`` imports (wherever the import is written)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.partition(".")[0])
    return found


def test_the_bot_calling_worker_reaches_no_database() -> None:
    """The bot-calling worker's modules (``services/worker/matches/``) and everything they import,
    even indirectly or inside a function, import neither asyncpg nor the database, the workflow
    or the trusted worker's modules: it runs strangers' bots and holds no credentials."""
    paths = modules(ROOT, PACKAGES)
    graph = import_graph(ROOT, PACKAGES)
    own = [m for m in graph if room(m) == "bot-calling"]
    assert "services.worker.matches.play_match" in own and "services.worker.matches.probe" in own
    reached = set().union(*(_reachable(graph, m) for m in own))
    assert "services.worker.senders" in reached  # the check follows imports
    trusted = sorted(m for m in reached if room(m) in {"db", "flow", "trusted", "boot"})
    assert trusted == []
    with_asyncpg = sorted(m for m in reached if "asyncpg" in external_imports(paths[m]))
    assert with_asyncpg == []


ARCHITECTURE_DOC = ROOT / "docs" / "architecture.md"
_PLACEHOLDERS = ("ROOM", "NAME", "*")


def doc_paths(text: str) -> list[str]:
    """The paths a document names in backticks: a file with its extension, or a folder (a
    trailing ``/``); placeholders (``ROOM``, ``NAME``, globs) are left out."""
    found = re.findall(r"`([A-Za-z0-9_./-]+(?:\.(?:py|md|js|json|html|sql)|/))`", text)
    return sorted({p for p in found if not any(h in p for h in _PLACEHOLDERS)})


def dead_paths(names: Iterable[str], root: Path = ROOT) -> list[str]:
    """Those of ``names`` that are no file or folder of the checkout: a name is found at the
    root or as the tail of a path (the document names modules within their folder's line)."""
    tree = [
        p.relative_to(root).as_posix() + ("/" if p.is_dir() else "")
        for top in (
            "engine",
            "arena",
            "truco_env",
            "services",
            "truco_cli",
            "tests",
            "bench",
            "docs",
            "examples",
            "api-spec",
        )
        if (root / top).exists()
        for p in (root / top).rglob("*")
        if "__pycache__" not in p.parts and "node_modules" not in p.parts
    ]
    return [
        name
        for name in names
        if not (root / name).exists() and not any(p == name or p.endswith("/" + name) for p in tree)
    ]


def test_every_path_the_architecture_doc_names_exists() -> None:
    paths = doc_paths(ARCHITECTURE_DOC.read_text())
    assert len(paths) > 100  # the document is read: it names its modules
    assert dead_paths(paths) == []


def test_the_architecture_doc_names_every_room() -> None:
    text = ARCHITECTURE_DOC.read_text()
    folders = [
        key.replace(".", "/")
        for key in ROOMS
        if (ROOT / "services" / key.replace(".", "/")).is_dir()
    ]
    assert [f for f in folders if f"`{f}/`" not in text] == []
    assert [r for r in ARENA_BELOW if f"`{r}/`" not in text] == []


def test_a_dead_path_is_found(tmp_path: Path) -> None:
    (tmp_path / "services" / "db").mkdir(parents=True)
    (tmp_path / "services" / "db" / "matches.py").write_text("")
    named = doc_paths("`db/matches.py`, `matches.py`, `db/`, `db/gone.py`, `tests/services/ROOM/`")
    assert named == ["db/", "db/gone.py", "db/matches.py", "matches.py"]
    assert dead_paths(named, tmp_path) == ["db/gone.py"]


# Documents are typed once where they enter (msgspec structs, TypedDicts); ``dict[str, Any]`` is
# left only where a document comes from outside and is validated right there, or is a
# third-party format. A module not named here that writes it fails.
UNTYPED_DOCUMENTS = {
    "services/api/guard/request_caps.py": "an ASGI scope's extensions (the server's)",
    "services/api/routes/schema_document.py": "the OpenAPI document (Litestar's)",
    "services/api/schemas/play.py": "the bot protocol's observation, as the wire has it",
    "services/api/schemas/sprt.py": "a request's rules, checked by Rules.from_dict",
    "services/api/schemas/tournaments.py": "a request's rules, checked by Rules.from_dict",
    "services/api/spec.py": "the OpenAPI document",
    "services/api/spec_rules.py": "the OpenAPI document",
    "services/base/environment.py": "the environment's values before Settings checks them",
    "services/flow/challenges.py": "a request's rules, checked by mode_rules",
    "services/flow/settings.py": "a request's rules, checked here",
    "services/flow/sprt.py": "a request's rules, checked by mode_rules",
    "services/tournaments/files/export_document.py": "what truco verify checks itself",
    "services/tournaments/files/tournament_file.py": "a user's file before it is checked",
    "services/web/reference.py": "the OpenAPI document",
    "services/worker/celery_types.py": "Celery's options",
    "services/worker/matches/play_match.py": "a broker message, converted at once",
    "services/worker/matches/play_person.py": "a broker message, converted at once",
    "services/worker/matches/probe.py": "a broker message, converted at once",
    "services/worker/observe.py": "Celery's task kwargs",
    "services/worker/results/periodic.py": "a broker message, converted at once",
}


def test_untyped_documents_only_where_they_enter() -> None:
    writing = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "services").rglob("*.py")
        if "dict[str, Any]" in path.read_text()
    }
    assert sorted(writing - set(UNTYPED_DOCUMENTS)) == []
