"""The nats-server configurations of a federation and its clubs (issue 35), from the
shipped files in ``deploy/nats/``: the federation's server (JetStream domain
``federation``, a leaf node port, one user per club in ``accounts.conf``) and a club's
(a leaf node with its own JetStream domain, named after the club).

Trust: each club authenticates with its own user, whose permissions let it publish only
its own subjects (``trigono.<club>.>``) and what its JetStream domain answers; a club's
credentials cannot put an entry in another club's stream (tests/sync/test_trust.py).

>>> club_id("Club-A")
Traceback (most recent call last):
...
hub.sync.natsconf.SyncConfigError: club id 'Club-A': expected 1 to 32 of a-z, 0-9 and - (it names subjects and a JetStream domain)
>>> subject("club-a")
'trigono.club-a.log'
>>> sorted(club_permissions("club-a")["publish"]["allow"])[-2:]
['_INBOX.>', 'trigono.club-a.>']
"""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path
from typing import Any

from hub.errors import BadInputError

DEPLOY = Path(__file__).resolve().parent.parent.parent / "deploy" / "nats"
FEDERATION_DOMAIN = "federation"
CLUB_STREAM = "TRIGONO"
"""Each club's own stream, in its own JetStream domain."""
FEDERATION_USER = "federation"
_CLUB_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")


class SyncConfigError(BadInputError):
    """A federation or club configuration that cannot be used (a club id that cannot name
    a subject, a missing field); the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


def club_id(text: str) -> str:
    """A club id as subjects and JetStream domains need it, or :class:`SyncConfigError`."""
    if not isinstance(text, str) or not _CLUB_ID.fullmatch(text) or text == FEDERATION_DOMAIN:
        raise SyncConfigError(f"club id {text!r}: expected 1 to 32 of a-z, 0-9 and - (it names "
                              "subjects and a JetStream domain)")
    return text


def subject(club: str) -> str:
    """The subject a club's hub publishes its committed entries on."""
    return f"trigono.{club}.log"


def deliver_prefix(club: str) -> str:
    """Where the club's server delivers its stream to the federation's source: under the
    club's own subjects (not in its stream, which holds :func:`subject` only)."""
    return f"trigono.{club}.deliver"


def federation_stream(club: str) -> str:
    """The federation's stream that sources a club's."""
    return "CLUB_" + club.replace("-", "_")


def club_permissions(club: str) -> dict[str, Any]:
    """What a club's leaf node may do on the federation's server. Publish: its own
    subjects (its stream's deliveries to the federation's source included,
    :func:`deliver_prefix`), the answers of its own JetStream domain, and reading its own
    copy at the federation (the sync status). Another club's subjects are refused."""
    return {
        "publish": {"allow": [f"trigono.{club}.>", "_INBOX.>", "$JSC.>",
                              f"$JS.{FEDERATION_DOMAIN}.API.STREAM.INFO.{federation_stream(club)}",
                              f"$JS.{FEDERATION_DOMAIN}.API.STREAM.MSG.GET.{federation_stream(club)}"]},
        "subscribe": {"allow": [">"]},
    }


def _fill(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace(f"@{key}@", value)
    if "@" in _code(template):
        raise SyncConfigError("a placeholder of the shipped configuration was left unfilled")
    return template


def _code(text: str) -> str:
    """The configuration without its comments and leaf URLs (where @ is a separator)."""
    lines = [line.split("#", 1)[0] for line in text.splitlines()]
    return re.sub(r"nats-leaf://[^\"]*", "", "\n".join(lines))


def federation_conf(*, listen: str, leaf_listen: str, store_dir: Path) -> str:
    """The federation's nats-server configuration (``accounts.conf`` beside it)."""
    return _fill((DEPLOY / "federation.conf").read_text(),
                 {"LISTEN": listen, "LEAF_LISTEN": leaf_listen, "STORE_DIR": str(store_dir)})


def club_conf(*, club: str, listen: str, federation: str, password: str, store_dir: Path,
              reconnect_s: int = 1) -> str:
    """A club's nats-server configuration: a leaf node of ``federation`` (host:port of its
    leaf node port) with the club's own JetStream domain."""
    return _fill((DEPLOY / "club.conf").read_text(),
                 {"CLUB": club_id(club), "LISTEN": listen, "FEDERATION": federation,
                  "PASSWORD": password, "STORE_DIR": str(store_dir),
                  "RECONNECT_S": str(max(int(reconnect_s), 1))})


def accounts_conf(secrets_by_user: dict[str, str]) -> str:
    """``accounts.conf``: one account with JetStream, the federation's own user (every
    right) and one user per club (:func:`club_permissions`)."""
    users = []
    for user, password in sorted(secrets_by_user.items()):
        entry: dict[str, Any] = {"user": user, "password": password}
        if user != FEDERATION_USER:
            entry["permissions"] = club_permissions(club_id(user))
        users.append(entry)
    return ("# Written by `trigono federation add-club`: do not edit by hand.\n"
            "accounts {\n  FEDERATION {\n    jetstream: enabled\n    users = "
            + json.dumps(users, indent=2).replace("\n", "\n    ") + "\n  }\n}\n")


class FederationFolder:
    """The federation's folder: ``nats.conf``, ``accounts.conf`` and ``secrets.json`` (the
    users' passwords, mode 0600). :meth:`add_club` makes a club's user."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @property
    def secrets_path(self) -> Path:
        return self.folder / "secrets.json"

    def secrets(self) -> dict[str, str]:
        if not self.secrets_path.exists():
            return {}
        found: dict[str, str] = json.loads(self.secrets_path.read_text())
        return found

    def clubs(self) -> list[str]:
        return sorted(user for user in self.secrets() if user != FEDERATION_USER)

    def init(self, *, listen: str, leaf_listen: str) -> None:
        """Write the server's configuration and the federation's own user."""
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "nats.conf").write_text(
            federation_conf(listen=listen, leaf_listen=leaf_listen, store_dir=self.folder / "jetstream"))
        found = self.secrets()
        found.setdefault(FEDERATION_USER, secrets.token_hex(16))
        self._write(found)

    def add_club(self, club: str) -> str:
        """Make (or keep) a club's user; its password."""
        found = self.secrets()
        password = found.setdefault(club_id(club), secrets.token_hex(16))
        self._write(found)
        return password

    def _write(self, found: dict[str, str]) -> None:
        self.secrets_path.touch(mode=0o600)
        self.secrets_path.write_text(json.dumps(found, indent=2, sort_keys=True) + "\n")
        (self.folder / "accounts.conf").write_text(accounts_conf(found))
