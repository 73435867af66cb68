"""The contracts are in the repository (issue 31, point 6): every rule or design id that code
or docs cite is defined in ``docs/rules/`` or ``docs/design.md``, every repository path they
cite exists, and nothing points outside the repository. Pure file scanning, well under a
second.

**Ids.** A clause id is a capital prefix letter and a number without a leading zero:
``T`` (Trigono, docs/rules/trigono.md), ``M`` (Triominos), ``K`` (Trike), ``L`` (Triolet)
and ``R`` (the design rules, docs/design.md) — :data:`PREFIX_HOME`.

- *Defined* by a markdown list item that opens with the id in bold, ``- **T11 Bounce-out.**``,
  in the prefix's home file; each id once, numbered from 1 without gaps.
- *Cited* wherever the id stands with no letter or digit either side (``T11``, ``(L4)``,
  ``M6–M8``; an underscore separates, so ``test_bounce_out_T11`` cites T11). Scanned: every
  ``*.md`` and every text file under :data:`CODE_DIRS`; in Python only comments, strings
  and ``test_…`` names (so a Python constant named like an id is not a citation).
- *Not* a citation, because it is a value: Triolet cells and board names — the id alone
  in quotes (``"K8"``), a Triolet placement (``K8:0``, ``L8:J6``) or an attribute value
  (``data-board=R6``); lowercase table ids (``t1``), hex and versions never match. Files
  where these letters mean parts, not rules: :data:`NOT_RULES` (with the reason). This
  file itself names the forbidden outside paths, so the outside check skips it.

**Sections.** ``docs/design.md §6`` (also ``§6, §9``) needs a heading ``## 6.`` there;
``docs/records.md § Trike`` needs a heading that the words after ``§`` start with.

**Paths.** A markdown link's target (relative to its file), and any path with a file
extension under a top-level directory of the repository (``hub/facade.py``,
``docs/rules/trike.md``) anywhere in the scanned files, must exist — except
:data:`MADE_BY_USER`, files a user creates that a clone never holds.

**Outside.** No file may cite ``DESIGN.md``, ``RECORDS.md``, a ``shared/``, ``notes/`` or
``examples/`` folder, a ``rules/`` folder other than ``docs/rules/``, an absolute
``/work/`` path or a markdown link leading out of the repository. The one exception,
:data:`OUTSIDE_ALLOWED`: where a user gets the MicroPython firmware images
(``shared/firmware-images``).
"""

from __future__ import annotations

import ast
import re
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PREFIX_HOME = {
    "T": "docs/rules/trigono.md",
    "M": "docs/rules/triominos.md",
    "K": "docs/rules/trike.md",
    "L": "docs/rules/triolet.md",
    "R": "docs/design.md",
}
CODE_DIRS = ("engines", "hub", "web", "firmware", "tests", "bench", "scripts")
TOP_DIRS = ("docs", "engines", "hub", "web", "firmware", "tests", "bench", "scripts", "hardware")
NOT_TEXT = (".png", ".wav", ".uf2", ".mpy", ".svg", ".ico", ".woff", ".woff2")
VENDORED = ("tests/web/assets/",)  # third-party files kept as they are (axe-core)
NOT_RULES = {
    "hardware/bom.md": "R and a number name the resistors (reference designators)",
}
MADE_BY_USER = {
    "firmware/boards/B1.py": "a board's config, copied from firmware/boards/pico_w_example.py",
    "firmware/local.py": "a board's git-ignored secrets, copied from firmware/local_example.py",
    "firmware/node.mpy": "compiled by scripts/deploy-board on its way to the board",
    "firmware/app.mpy": "compiled into an update bundle (hub/fleet/bundle.py, issue 33)",
    "firmware/beams.mpy": "compiled into an update bundle (hub/fleet/bundle.py, issue 33)",
    "tests/records/X.json": "a placeholder for any worked example",
}
SELF = "tests/test_contracts.py"
OUTSIDE_ALLOWED = {
    # where the chip tests (and their user) find the MicroPython firmware images
    "firmware/README.md": "shared/firmware-images",
    ".ci/run": "shared/firmware-images",
    "tests/hil/chip.py": "shared/firmware-images",
}

ID = r"[TMKLR][1-9][0-9]?"
DEFINITION = re.compile(rf"^- \*\*({ID})(?![0-9A-Za-z])", re.M)
CITATION = re.compile(rf"(?<![A-Za-z0-9])({ID})(?![A-Za-z0-9])")
HEADING = re.compile(r"^#{2,} +(.+?) *$", re.M)
DESIGN_SECTIONS = re.compile(r"docs/design\.md((?:[ ,;]*§ ?[0-9]+)+)")
NAMED_SECTION = re.compile(r"(docs/[\w/.-]+\.md) ?§ ?([A-Z][^\n`]*)")
MD_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
REPO_PATH = re.compile(rf"(?<![\w./$-])\b((?:{'|'.join(TOP_DIRS)})/[\w./-]+)")
FILE_NAME = re.compile(r"[\w-]+(?:\.[\w-]+)*\.[A-Za-z0-9]+")  # the last part of a file's path
OUTSIDE = re.compile(
    r"\b(?:DESIGN|RECORDS)\.md\b|(?<![\w-])shared/[\w.-]*|(?<![\w.-])(?:notes|examples)/|(?<![\w.])/work/"
)
BARE_RULES = re.compile(r"(?<![\w/.-])rules/\w+\.(?:md|txt)")


def repo_files(root: Path) -> list[str]:
    """Tracked and new (not ignored) files, as a clone would hold them."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=root, capture_output=True, text=True, check=True,
    ).stdout
    return sorted({f for f in out.splitlines() if (root / f).is_file()})


def text_files(root: Path, files: list[str]) -> Iterator[tuple[str, str]]:
    for name in files:
        if name.endswith(NOT_TEXT) or name.startswith(VENDORED):
            continue
        try:
            yield name, (root / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue


def in_scope(name: str) -> bool:
    return name.endswith(".md") or name.split("/", 1)[0] in CODE_DIRS


def string_spans(tree: ast.AST) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(line, byte column) start and end of every string literal, f-strings whole."""
    return [((n.lineno, n.col_offset), (n.end_lineno or n.lineno, n.end_col_offset or 0))
            for n in ast.walk(tree)
            if isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str))]


def citable(name: str, text: str) -> Callable[[int, str, int], bool]:
    """Whether the character at (line, column) may hold a citation: anywhere outside
    Python; in Python in a comment, a string or a ``test_…`` name. A quick reading of
    quotes and ``#`` settles most places; what it would call code is checked with
    :mod:`ast` (parsed only then: parsing every file would cost most of this test)."""
    if not name.endswith(".py"):
        return lambda number, line, column: True
    lines = text.splitlines()
    triple_at_start: list[str | None] = [None]
    for line in lines:  # the triple-quoted string each line starts inside, if any
        changes = '"""' in line or "'''" in line
        triple_at_start.append(quote_state(line, triple_at_start[-1], len(line))[0] if changes else triple_at_start[-1])
    spans: list[tuple[tuple[int, int], tuple[int, int]]] = []

    def in_string(number: int, byte: int) -> bool:
        if not spans:
            spans.extend(string_spans(ast.parse(text)) or [((0, 0), (0, 0))])
        return any(a <= (number, byte) < b for a, b in spans)

    def check(number: int, line: str, column: int) -> bool:
        if any(m.start(1) <= column < m.end(1) for m in re.finditer(r"\bdef (test_\w*)", line)):
            return True
        triple, single, comment = quote_state(line, triple_at_start[number - 1], column)
        if triple or single or comment:
            return True
        return in_string(number, len(line[:column].encode()))

    return check


def quote_state(line: str, triple: str | None, column: int) -> tuple[str | None, str | None, bool]:
    """(open triple quote, open single quote, in a comment) at ``column`` of ``line``."""
    single: str | None = None
    i = 0
    while i < column:
        if triple:
            if line.startswith(triple, i):
                triple, i = None, i + 3
                continue
        elif single:
            if line[i] == "\\":
                i += 1
            elif line[i] == single:
                single = None
        elif line.startswith(('"""', "'''"), i):
            triple, i = line[i : i + 3], i + 3
            continue
        elif line[i] in "\"'":
            single = line[i]
        elif line[i] == "#":
            return None, None, True
        i += 1
    return triple, single, False


def is_value(line: str, start: int, end: int) -> bool:
    """A board cell or a board name in data, not a rule: ``"K8"``, ``K8:0``, ``=R6``."""
    before, after = line[start - 1 : start] if start else "", line[end : end + 1]
    if before in ('"', "'") and after == before:
        return True
    if after == ":" and line[end + 1 : end + 2] in tuple("0123456789J"):
        return True
    return before == "="


def citations(name: str, text: str) -> Iterator[tuple[int, str]]:
    if not CITATION.search(text):
        return
    check = citable(name, text)
    for number, line in enumerate(text.splitlines(), 1):
        for match in CITATION.finditer(line):
            if not is_value(line, *match.span()) and check(number, line, match.start()):
                yield number, match.group(1)


def definitions(root: Path) -> tuple[dict[str, str], list[str]]:
    """Each defined id → its file, and what is wrong with the definitions themselves."""
    defined: dict[str, str] = {}
    problems: list[str] = []
    homes = sorted({*PREFIX_HOME.values(), *(p.relative_to(root).as_posix() for p in (root / "docs/rules").glob("*.md"))})
    for home in homes:
        path = root / home
        if not path.is_file():
            problems.append(f"{home}: missing")
            continue
        for ident in DEFINITION.findall(path.read_text(encoding="utf-8")):
            if ident in defined:
                problems.append(f"{home}: {ident} defined again (first in {defined[ident]})")
            elif PREFIX_HOME[ident[0]] != home:
                problems.append(f"{home}: {ident} belongs in {PREFIX_HOME[ident[0]]}")
            defined.setdefault(ident, home)
    for prefix, home in PREFIX_HOME.items():
        numbers = sorted(int(i[1:]) for i in defined if i[0] == prefix)
        if numbers != list(range(1, len(numbers) + 1)):
            problems.append(f"{home}: {prefix} ids are not numbered 1..n: {numbers}")
    return defined, problems


def headings(path: Path) -> list[str]:
    return HEADING.findall(path.read_text(encoding="utf-8")) if path.is_file() else []


def section_problems(root: Path, name: str, text: str) -> Iterator[str]:
    for match in DESIGN_SECTIONS.finditer(text):
        titles = headings(root / "docs/design.md")
        for number in re.findall(r"[0-9]+", match.group(1)):
            if not any(t.startswith(f"{number}.") for t in titles):
                yield f"{name}: docs/design.md §{number}: no such section"
    for match in NAMED_SECTION.finditer(text):
        target, words = match.groups()
        titles = headings(root / target)
        if not any(re.match(re.escape(t.split(" (")[0]) + r"(?![A-Za-z])", words) for t in titles):
            yield f"{name}: {target} § {words[:30]!r}: no such section"


def path_problems(root: Path, name: str, text: str) -> Iterator[str]:
    here = (root / name).parent
    if name.endswith(".md"):
        for target in MD_LINK.findall(text):
            if re.match(r"[a-z]+:|#", target):
                continue
            resolved = (here / target.split("#")[0]).resolve()
            if not resolved.is_relative_to(root):
                yield f"{name}: link {target} leads outside the repository"
            elif not resolved.exists():
                yield f"{name}: link {target}: no such file"
    for path in REPO_PATH.findall(text):
        path = path.rstrip(".")
        if not FILE_NAME.fullmatch(path.rsplit("/", 1)[-1]):
            continue  # a folder, or a module's dotted name
        if path not in MADE_BY_USER and not (root / path).exists():
            yield f"{name}: {path}: no such file"


def outside_problems(name: str, text: str) -> Iterator[str]:
    if not any(word in text for word in ("DESIGN.md", "RECORDS.md", "shared/", "notes/", "examples/", "/work/", "rules/")):
        return
    bare_rules = not name.startswith("docs/") and BARE_RULES.search(text)
    allowed = OUTSIDE_ALLOWED.get(name)
    for number, line in enumerate(text.splitlines(), 1):
        found = OUTSIDE.findall(line) + (BARE_RULES.findall(line) if bare_rules else [])
        for hit in found:
            if hit != allowed:
                yield f"{name}:{number}: {hit!r} is outside the repository"


def contract_problems(root: Path) -> list[str]:
    """Everything that does not resolve in the repository at ``root``, one line each."""
    defined, problems = definitions(root)
    for name, text in text_files(root, repo_files(root)):
        if name != SELF:
            problems += outside_problems(name, text)
        if not in_scope(name):
            continue
        problems += section_problems(root, name, text)
        problems += path_problems(root, name, text)
        if name in NOT_RULES:
            continue
        problems += [f"{name}:{n}: {i} is defined nowhere in docs/rules/ or docs/design.md"
                     for n, i in citations(name, text) if i not in defined]
    return problems


def test_every_cited_id_file_and_section_resolves_in_the_repository() -> None:
    assert contract_problems(ROOT) == []


def test_every_game_and_the_design_define_their_ids() -> None:
    defined, problems = definitions(ROOT)
    assert problems == []
    counts = Counter(i[0] for i in defined)
    assert counts == {"T": 21, "M": 14, "K": 6, "L": 15, "R": 2}


CODE = "hub/facade.py"  # the tiny repository's one code file (it exists here too)
MISSING = "hub/" + "nothing.py"  # built, so that this file cites no missing path itself


@pytest.fixture
def tiny_repo(tmp_path: Path) -> Path:
    """A repository with one rule of each prefix, one citation and one link."""
    (tmp_path / "docs/rules").mkdir(parents=True)
    for prefix, home in PREFIX_HOME.items():
        (tmp_path / home).write_text(f"# x\n## 1. One\n- **{prefix}1 One.** a rule.\n")
    (tmp_path / "hub").mkdir()
    constant = "T9" + "5"
    (tmp_path / CODE).write_text(f'"""Cites T1 (docs/design.md §1)."""\n{constant} = 2\nCELL = "K8"\n')
    (tmp_path / "README.md").write_text("See [the rules](docs/rules/trigono.md).\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert contract_problems(tmp_path) == []
    return tmp_path


def test_a_bogus_id_a_lost_definition_a_missing_file_and_an_outside_pointer_all_fail(tiny_repo: Path) -> None:
    bogus = "T" + "2"
    code = tiny_repo / CODE
    code.write_text(code.read_text() + f"# {bogus}: nowhere\n")
    assert contract_problems(tiny_repo) == [f"{CODE}:4: {bogus} is defined nowhere in docs/rules/ or docs/design.md"]
    code.write_text(f"def test_it_{bogus}() -> None: ...\n")
    assert len(contract_problems(tiny_repo)) == 1

    code.write_text('"""Cites T1."""\n')
    rules = tiny_repo / PREFIX_HOME["T"]
    rules.write_text("# x\n")
    assert contract_problems(tiny_repo) == [f"{CODE}:1: T1 is defined nowhere in docs/rules/ or docs/design.md"]
    rules.write_text("- **T1 One.**\n- **T3 Three.**\n")
    assert contract_problems(tiny_repo) == [f"{PREFIX_HOME['T']}: T ids are not numbered 1..n: [1, 3]"]
    rules.write_text("- **T1 One.**\n")

    code.write_text(f"# see docs/records.md and {MISSING}, docs/design.md §7\n")
    assert contract_problems(tiny_repo) == [
        f"{CODE}: docs/design.md §7: no such section",
        f"{CODE}: docs/records.md: no such file",
        f"{CODE}: {MISSING}: no such file",
    ]
    code.write_text("# " + "DESIGN" + ".md, ../" + "shared/rules and " + "rules/trike.md\n")
    assert len(contract_problems(tiny_repo)) == 3
    code.write_text("")
    (tiny_repo / "README.md").write_text("[up](../x.md)\n")
    assert contract_problems(tiny_repo) == ["README.md: link ../x.md leads outside the repository"]


def test_values_that_look_like_ids_are_not_citations() -> None:
    line = 'play "K8" K8:0 L8:J6 data-board=R6 t1 0x1F v1.28 B12 HX711 LM339 RP2040'
    assert list(citations("web/static/js/live.js", line)) == []
    code = "def test_bounce_out_T11(): " + "T9" + "5 = 'K8:0'\n"
    assert [i for _, i in citations("tests/conftest.py", code)] == ["T11"]
