"""``trigono store``: find damaged records in an event store, and set them aside (issue 32.4).

    trigono store check --db festival.db    # lists what is damaged, changes nothing; exit 1 if any
    trigono store repair --db festival.db   # sets damaged entries aside, drops damaged snapshots

Every entry and snapshot carries a checksum (older ones: JSON only is checked). A damaged
snapshot is only a cache: the hub ignores it and rebuilds the table from the log. A
damaged entry stops the hub's start with one line naming it; ``repair`` then keeps every
sound entry, moves each damaged one — its bytes as they are — to the table
``log_set_aside`` of the same store (nothing is dropped silently) and drops the damaged
snapshots. It refuses while a hub uses the store. Loaded by :mod:`hub.cli.main`.
"""

from __future__ import annotations

import argparse
import os
import sys

EXIT_DAMAGED = 1
EXIT_BAD_INPUT = 2


def _sqlite_file(db: str) -> bool:
    """A ``--db`` that must be an existing SQLite file (a typo must not create one)."""
    from hub.log.store import StoreOpenError, is_postgres_url

    if is_postgres_url(db):
        return False
    if not os.path.isfile(db):
        raise StoreOpenError(f"no SQLite event store at {db}")
    return True


def cmd_check(args: argparse.Namespace) -> int:
    import psycopg

    from hub.log.postgres import PostgresStore
    from hub.log.sqlite import damage_of
    from hub.log.store import StoreOpenError

    try:
        if _sqlite_file(args.db):
            check = damage_of(args.db)
        else:
            store = PostgresStore(args.db)
            try:
                check = store.damage()
            finally:
                store.close()
    except (StoreOpenError, psycopg.Error) as err:
        print(f"--db: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for damage in check.damage:
        print(damage.line())
    entries = sum(1 for d in check.damage if d.entry_id is not None)
    snapshots = len(check.damage) - entries
    print(f"damaged entries: {entries} of {check.entries}; damaged snapshots: {snapshots} of "
          f"{check.snapshots}" + (" — `trigono store repair --db …` sets them aside"
                                  if check.damage else " — nothing to repair"))
    return EXIT_DAMAGED if check.damage else 0


def cmd_repair(args: argparse.Namespace) -> int:
    import psycopg

    from hub.log.postgres import PostgresStore
    from hub.log.sqlite import SqliteStore, lock_writer
    from hub.log.store import SET_ASIDE_TABLE, StoreOpenError

    store: SqliteStore | PostgresStore | None = None
    try:
        if _sqlite_file(args.db):
            lock_writer(args.db)  # refused while a hub has the file
            store = SqliteStore(args.db)
        else:
            store = PostgresStore(args.db)
        check = store.damage()
        if check.damage:
            store.set_aside(check.damage)
    except (StoreOpenError, psycopg.Error) as err:
        print(f"--db: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        if store is not None:
            store.close()
    aside = [d for d in check.damage if d.entry_id is not None]
    for d in check.damage:
        print(("set aside " if d.entry_id is not None else "dropped ") + d.line())
    print(f"kept {check.entries - len(aside)} entries of {check.entries}; "
          + (f"{len(aside)} set aside in the table {SET_ASIDE_TABLE} of the same store"
             if aside else "none set aside")
          + f"; {len(check.damage) - len(aside)} damaged snapshots dropped (rebuilt from the log)")
    return 0


def add_store(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("store", help="check an event store for damage, repair it",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="action", required=True)
    for name, func, summary, description in (
        ("check", cmd_check, "list damaged entries and snapshots (changes nothing)",
         "Read every entry and snapshot of the store and list those whose checksum (or JSON) is "
         "wrong. Changes nothing. Exit 1 when something is damaged, 2 when the store cannot be read."),
        ("repair", cmd_repair, "set damaged entries aside, drop damaged snapshots",
         "Keep every sound entry; move each damaged one, as it is, to the table log_set_aside of "
         "the same store; drop damaged snapshots (the hub rebuilds them from the log). Prints what "
         "it did. Refused while a hub uses the store."),
    ):
        action = actions.add_parser(name, help=summary, description=description)
        action.add_argument("--db", required=True, help="event store: a SQLite file or a postgresql:// URL")
        action.set_defaults(func=func)

COMMANDS = [add_store]
