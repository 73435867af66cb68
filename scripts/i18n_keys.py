"""Add, change or remove catalogue keys in both languages at once (web/messages/*.json).

    .venv/bin/python scripts/i18n_keys.py KEYS.json

KEYS.json maps a key to ``{"en": ..., "fr": ...}`` (set or change) or to ``null`` (remove).
Keys stay grouped: a new key goes after the last key of its longest shared prefix.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

MESSAGES = Path(__file__).resolve().parents[1] / "web" / "messages"


def edit(catalogue: dict[str, str], changes: dict[str, str | None]) -> dict[str, str]:
    out = dict(catalogue)
    for key, text in changes.items():
        if text is None:
            out.pop(key, None)
            continue
        if key in out:
            out[key] = text
            continue
        items = list(out.items())
        at = len(items) - 1
        prefix = key
        while "." in prefix:  # after the last key of the longest shared group
            prefix = prefix.rsplit(".", 1)[0]
            group = [k for k, (name, _) in enumerate(items) if name.startswith(prefix + ".")]
            if group:
                at = group[-1]
                break
        items.insert(at + 1, (key, text))
        out = dict(items)
    return out


def main(path: str) -> int:
    changes = json.loads(Path(path).read_text(encoding="utf-8"))
    for lang in ("en", "fr"):
        file = MESSAGES / f"{lang}.json"
        catalogue = json.loads(file.read_text(encoding="utf-8"))
        mine = {k: (None if v is None else v[lang]) for k, v in changes.items()}
        file.write_text(json.dumps(edit(catalogue, mine), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
