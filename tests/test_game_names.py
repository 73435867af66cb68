"""Games are known by their capabilities, never by their name (issue 31.3): the hub and
the web branch on a game's type (``engines.core.GameType``, ``capabilities`` in every
table view), so a fifth game touches no page and no hub module.

What counts as branching on a name, read from the source:

- Python (hub/, web/), with :mod:`ast`: a game's record name as a string constant that
  is compared (``==``, ``!=``, ``in``…), a dict key, an element of a tuple, list or set,
  or a ``match`` case. A name passed as an argument (``TableSpec.build("trigono", …)``,
  a command's default game) is not a branch.
- Templates (web/templates) and scripts (web/static, but a renderer's own files): the
  name as a whole quoted string (``'trigono'``, ``"trike"``, a template literal), which
  is how a comparison, a list or a key names it there; catalogue keys such as
  ``"trike.swap"`` or ``'game.' ~ g`` are not whole names.

A game's own adapter may know its name (ADAPTERS): the Trigono referee and where its
boards sit, the simulated Trigono boards, and each renderer (``web/static/games/<name>.*``,
its own name only).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from engines import GAMES

ROOT = Path(__file__).resolve().parent.parent
NAMES = frozenset(GAMES)

ADAPTERS = {
    "hub/tables/referee.py": "the Trigono referee: sensor-board tables (chosen by sensor_boards)",
    "hub/tables/layout.py": "where a Trigono table's boards sit, its hexagon",
    "hub/sim": "the simulated Trigono boards and tables",
}


def adapter(rel: str) -> bool:
    return any(rel == path or rel.startswith(path + "/") for path in ADAPTERS)


def python_branches(source: str, filename: str = "<test>") -> list[tuple[int, str]]:
    """Where ``source`` branches on a game's name: (line, the name).

    >>> python_branches('if view["game"] == "trigono":\\n    pass')
    [(1, 'trigono')]
    >>> python_branches('KINDS = {"trike": 5}\\nOK = build("trike", seats=2)')
    [(1, 'trike')]
    >>> python_branches('x = g in ("triolet", "chess")')
    [(1, 'triolet')]
    """
    found: list[tuple[int, str]] = []

    def names_in(nodes: list[ast.expr | None]) -> None:
        for node in nodes:
            if isinstance(node, ast.Constant) and node.value in NAMES:
                found.append((node.lineno, str(node.value)))
            elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                names_in(list(node.elts))

    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Compare):
            names_in([node.left, *node.comparators])
        elif isinstance(node, ast.Dict):
            names_in(list(node.keys))
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            names_in(list(node.elts))
        elif isinstance(node, ast.MatchValue):
            names_in([node.value])
    return sorted(set(found))


QUOTED = re.compile(r"""(["'`])([a-z]+)\1""")


def quoted_names(text: str, own: str | None = None) -> list[tuple[int, str]]:
    """Where a template or a script names a game as a whole quoted string (``own``: the
    one name a renderer's file may use).

    >>> quoted_names("{% if t.spec.game == 'trigono' %}")
    [(1, 'trigono')]
    >>> quoted_names('t("trike.swap"); if (view.game === `trike`) {}', own=None)
    [(1, 'trike')]
    >>> quoted_names('el("p", {class: "trike-status"})', own="trike")
    []
    """
    return [(text.count("\n", 0, m.start()) + 1, m.group(2)) for m in QUOTED.finditer(text)
            if m.group(2) in NAMES and m.group(2) != own]


def python_files() -> list[Path]:
    return sorted(p for pkg in ("hub", "web") for p in (ROOT / pkg).rglob("*.py"))


def page_files() -> list[Path]:
    web = ROOT / "web"
    return sorted([*web.rglob("templates/**/*.html"), *web.rglob("static/**/*.js")])


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", python_files(), ids=rel)
def test_no_python_module_of_the_hub_or_the_web_branches_on_a_game_name(path: Path) -> None:
    if adapter(rel(path)):
        return
    assert python_branches(path.read_text(encoding="utf-8"), str(path)) == []


def test_no_template_or_script_branches_on_a_game_name() -> None:
    wrong = {}
    for path in page_files():
        own = path.stem if path.parent.name == "games" else None  # a renderer knows its own name
        hits = quoted_names(path.read_text(encoding="utf-8"), own)
        if hits:
            wrong[rel(path)] = hits
    assert wrong == {}


def test_the_style_sheets_select_no_game_by_name() -> None:
    """The site's style sheets style what a game is (``.on-boards``), not which it is;
    a renderer's own sheet (web/static/games/) may."""
    pattern = re.compile(r"\.game-(" + "|".join(sorted(NAMES)) + r")\b|data-group=(" + "|".join(sorted(NAMES)) + r")\b")
    wrong = {rel(p): pattern.findall(p.read_text(encoding="utf-8"))
             for p in (ROOT / "web" / "static" / "css").rglob("*.css") if pattern.search(p.read_text(encoding="utf-8"))}
    assert wrong == {}


def test_the_adapters_exist() -> None:
    """An allow-list entry whose file went away must leave the list."""
    for path in ADAPTERS:
        assert (ROOT / path).exists(), path


def test_the_scan_sees_a_branch_on_a_name() -> None:
    """The checks above catch the shapes this issue removed (a test that cannot fail
    proves nothing)."""
    assert python_branches('cls = A if spec["game"] == "trigono" else B') == [(1, "trigono")]
    assert python_branches('NO_QUICK_GAME = ("trigono",)') == [(1, "trigono")]
    assert quoted_names("  const trigono = view.game === \"trigono\";") == [(1, "trigono")]
    assert quoted_names("{% for group in ['trigono', 'tournament'] %}") == [(1, "trigono")]
    assert quoted_names("fieldset.hidden = gameSelect.value !== 'trigono';") == [(1, "trigono")]
