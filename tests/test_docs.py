"""The documentation names what exists (issue 23: docs went stale after moves) and carries
the contracts the README promises."""

from __future__ import annotations

import re
from pathlib import Path

from firmware import protocol

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "firmware" / "README.md",
        ROOT / "hardware" / "README.md", ROOT / "web" / "GAMES.md"]
PATH = re.compile(r"`((?:engines|hub|web|firmware|tests|bench|scripts|hardware|docs)/[\w./-]+)`")


def test_every_path_the_docs_name_exists():
    missing = []
    for doc in DOCS:
        for found in PATH.findall(doc.read_text(encoding="utf-8")):
            path = found.rstrip(".,:;")
            if not (ROOT / path).exists():
                missing.append(f"{doc.relative_to(ROOT)}: {path}")
    assert missing == []


def test_the_protocol_contract_lists_every_message_type():
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    absent = [t for t in (*protocol.DEVICE_TYPES, *protocol.HUB_TYPES) if not re.search(rf"\b{t}\b", text)]
    assert absent == []


def test_the_readme_points_at_contracts_inside_the_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/records.md" in readme and "shared docs" not in readme
    assert (ROOT / "docs" / "records.md").read_text(encoding="utf-8").count("trigono replay") >= 1


def test_the_hub_page_lists_every_hub_module():
    """docs/hub.md's wing tables name each module of hub/ (they went stale: six missing)."""
    text = (ROOT / "docs" / "hub.md").read_text(encoding="utf-8")
    missing = []
    for path in sorted((ROOT / "hub").rglob("*.py")):
        if path.name == "__init__.py" or "__pycache__" in path.parts:
            continue
        folder = path.parent.relative_to(ROOT).as_posix() + "/"
        section = text.split(f"### `{folder}`", 1)
        if len(section) < 2 or f"`{path.name}`" not in section[1].split("\n### ", 1)[0]:
            missing.append(path.relative_to(ROOT).as_posix())
    assert missing == []
