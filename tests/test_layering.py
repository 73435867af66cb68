"""The shape of the code (issues 23, 31): imports go one way, web → hub (its api) → engines;
no import circle except type-only ones; the hub's wings keep few modules at the top; the
web's pages see the hub through hub/api.py only, and that door stays narrow.

Read from the source with :mod:`ast` — every import, at module level or inside a function
(a lazy import is still a dependency), except those under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engines", "hub", "web", "firmware")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The syntax tree of one source file, parsed once per session (the tests only read it)."""
    return ast.parse(path.read_text(), str(path))


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The project modules ``path`` imports at run time (the longest known module name)."""
    tree = parsed(path)
    found: set[str] = set()
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking_only(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - child.level + 1]
                                    + ([base] if base else []))
                names = [f"{base}.{a.name}" for a in child.names]
            else:
                visit(child)
                continue
            for name in names:
                while name and name not in known:
                    name = name.rpartition(".")[0]
                if name:
                    found.add(name)
    visit(tree)
    found.discard(module_name(path))
    return found


@functools.cache
def graph() -> nx.DiGraph:
    """The import graph of the packages, built once per session: every test reads it, none
    changes it (it is frozen, so a test that tried would fail)."""
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    known = {module_name(p) for p in files}
    g = nx.DiGraph()
    for p in files:
        g.add_node(module_name(p))
        for dep in imports_of(p, known):
            g.add_edge(module_name(p), dep)
    return nx.freeze(g)


def test_no_import_circle():
    cycles = list(nx.simple_cycles(graph()))
    assert cycles == []


# The web's programs: composition roots of their own (a hub assembled from options, the
# pages served on it). Every other module of the web is its library (the pages).
WEB_PROGRAMS = {"web.__main__", "web.demo"}
# What hub/api.py is made of: the facade, the typed errors, the value types the web takes.
HUB_API_PARTS = {"hub.errors", "hub.facade", "hub.jsonlimits", "hub.log.store", "hub.tables.spec",
                 "hub.tournament.model"}


def test_the_webs_pages_import_only_the_hub_api():
    """Issue 31, a narrow door: the web's library reaches the hub through hub/api.py
    alone (a program may assemble one: hub/assemble.py)."""
    g = graph()
    reached = {(src, dst) for src, dst in g.edges if src.split(".")[0] == "web" and src not in WEB_PROGRAMS
               and dst.split(".")[0] in ("hub", "firmware") and dst != "hub.api"}
    assert reached == set()


def test_the_webs_programs_assemble_their_hub_without_the_cli():
    """``python -m web`` and the demo are composition roots like ``trigono hub``: they
    share :mod:`hub.assemble`, none depends on another's command line; and no page
    imports a program."""
    g = graph()
    assert {(src, dst) for src, dst in g.edges if src in WEB_PROGRAMS and dst.startswith("hub.cli")} == set()
    assert {(src, dst) for src, dst in g.edges if src.startswith("web") and src not in WEB_PROGRAMS
            and dst in WEB_PROGRAMS} == set()
    assert {src for src, dst in g.edges if dst == "hub.assemble"} <= WEB_PROGRAMS | {"hub.cli.commands"}


def test_the_hub_api_is_the_facade_its_errors_and_value_types():
    """hub/api.py imports no CLI, no assembly, no simulator, no drawing helper: only the
    parts of :data:`HUB_API_PARTS`; and every name it exports is one the web uses."""
    assert set(graph().successors("hub.api")) == HUB_API_PARTS
    import hub.api

    used: set[str] = set()
    for path in (ROOT / "web").rglob("*.py"):
        for node in ast.walk(parsed(path)):  # type-only uses count
            if isinstance(node, ast.ImportFrom) and node.module == "hub.api":
                used.update(a.name for a in node.names)
    assert sorted(set(hub.api.__all__) - used) == []


def test_imports_go_one_way():
    g = graph()
    wrong = {(src, dst) for src, dst in g.edges
             if (src.startswith("engines") and not dst.startswith("engines"))
             or (src.startswith("hub") and dst.startswith("web"))
             or (src.startswith("firmware") and not dst.startswith("firmware"))}
    assert wrong == set()


def test_the_hub_and_the_web_reach_games_through_the_registry():
    """engines.GAMES / engines.game_spec give a game's parts (docs/contributing.md, the
    engine contract): no module of the hub or the web imports a game package by name."""
    g = graph()
    games = {p.name for p in (ROOT / "engines").iterdir() if (p / "__init__.py").exists()}
    wrong = {(src, dst) for src, dst in g.edges if src.split(".")[0] in ("hub", "web")
             and any(dst == f"engines.{game}" or dst.startswith(f"engines.{game}.") for game in games)}
    assert wrong == set()


def test_the_hub_imports_only_the_codec_and_the_node_from_firmware():
    g = graph()
    wrong = {(src, dst) for src, dst in g.edges if src.startswith("hub") and dst.startswith("firmware")
             and dst != "firmware.protocol" and not src.startswith("hub.sim")}
    assert wrong == set()


def test_few_modules_sit_directly_in_hub():
    top = sorted(p.name for p in (ROOT / "hub").glob("*.py"))
    assert len(top) <= 8, top  # __init__, __main__, api, assemble, errors, facade, jsonlimits, replica


def test_one_module_writes_the_log():
    """Every door into the log goes through hub.log.writer (issue 23): no other module of
    the hub or the web calls a store's ``append``."""
    callers = set()
    for path in [*(ROOT / "hub").rglob("*.py"), *(ROOT / "web").rglob("*.py")]:
        for node in ast.walk(parsed(path)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "append"
                    and ast.unparse(node.func.value).split(".")[-1] in ("store", "_store")):
                callers.add(module_name(path))
    assert callers == {"hub.log.writer"}


def test_only_the_hubs_edges_word_in_english():
    """The hub's views carry kinds and params, no words (issue 31.5): the English lines of
    hub/tables/wording.py are for the hub's edges only — its log lines (the device
    ingest) and the command line — and the web words kinds from its catalogues. What a
    view holds is searched for words in tests/hub/test_views_have_no_words.py."""
    g = graph()
    users = {src for src, dst in g.edges if dst == "hub.tables.wording"}
    assert users <= {"hub.devices.ingest"} | {m for m in g.nodes if m.startswith("hub.cli")}, users


def _calls_of(name: str) -> dict[str, int]:
    """How many times each module of the hub and the web calls ``name(...)``."""
    found: dict[str, int] = {}
    for path in [*(ROOT / "hub").rglob("*.py"), *(ROOT / "web").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == name:
                found[module_name(path)] = found.get(module_name(path), 0) + 1
    return found


def test_one_log_writer_per_hub():
    """Issue 31.1: the hub builds its one writer; tables, devices and tournaments are
    handed it. A tournament service builds one only without a hub (a CLI load, a test):
    ``hub.writer if hub is not None else LogWriter(...)``."""
    assert _calls_of("LogWriter") == {"hub.facade": 1, "hub.tournament.service": 1}
    service = (ROOT / "hub" / "tournament" / "service.py").read_text()
    assert "self.writer = hub.writer if hub is not None else LogWriter(store, None)" in service


def test_a_tournament_writes_its_own_status_and_cache_key():
    """Issue 31.4: only :class:`hub.tournament.state.Tournament` assigns a tournament's
    ``revision`` (its cache key) and ``status``; a match's or a player's status is theirs
    (``m.status``, ``p.status``, ``x.status`` in the tournament's modules)."""
    wrong = set()
    for path in (ROOT / "hub").rglob("*.py"):
        if module_name(path) == "hub.tournament.state":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
            for target in targets:
                for sub in ast.walk(target):
                    if not isinstance(sub, ast.Attribute):
                        continue
                    owner = ast.unparse(sub.value)
                    if sub.attr == "revision" or (sub.attr == "status" and path.parent.name == "tournament"
                                                  and owner not in ("m", "x", "p", "self")):
                        wrong.add(f"{module_name(path)}: {ast.unparse(sub)}")
    assert wrong == set()


def test_the_device_side_never_reaches_the_facade():
    """Issue 31.4: the ingest loop applies through the writer straight into the table set
    (no callback into the facade), and owns the timer's device work."""
    g = graph()
    assert {dst for src, dst in g.edges if src.startswith("hub.devices")} & {"hub.facade", "hub.api"} == set()
    loop = ast.parse((ROOT / "hub" / "devices" / "ingest_loop.py").read_text())
    init = next(n for n in ast.walk(loop) if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    assert not any("Callable" in ast.unparse(a.annotation) for a in init.args.args if a.annotation)
    facade = (ROOT / "hub" / "facade.py").read_text()
    assert [work for work in ("ingest.due_acks", "ask_clock", ".expire(", ".due(", "timer_wanted")
            if work in facade] == []
