"""Tournaments from registration to podium, on the hub's append-only log (issue 16).

Pure logic (no threads, no I/O), one module per responsibility, each owning its
functions (nothing is grafted onto a class; no module calls another's private names):

- :mod:`hub.tournament.model` — the spec, players, stations, matches, rankings; typed errors;
- :mod:`hub.tournament.state` — :class:`~hub.tournament.state.Tournament`, the fold of the
  log's entries (registration, start, results, brackets filled from results) and
  :data:`~hub.tournament.state.HANDLERS`, each entry type's handler in its own module;
- pairing: :mod:`hub.tournament.pairing` (Swiss duels by the Dutch system's criteria),
  :mod:`hub.tournament.formats` (groups of k, pools, elimination brackets and seeding),
  :mod:`hub.tournament.swiss` (the ``round`` and ``redraw`` entries);
- scheduling and stations: :mod:`hub.tournament.scheduling` (stations, calls, the
  director's follow-ups);
- placings: :mod:`hub.tournament.standings` (points and tie-breaks),
  :mod:`hub.tournament.placings` (pool qualifiers, bracket places, final ranking, podium);
- :mod:`hub.tournament.corrections` — what a correction changes, shown before it is made;
- :mod:`hub.tournament.ratings` — OpenSkill (Plackett-Luce) ratings across events.

On a running hub: :mod:`hub.tournament.service` (durable, thread-safe, fed by the tables
it opens: :mod:`hub.tournament.tables`), :mod:`hub.tournament.sim` and
:mod:`hub.tournament.demo` (simulated ones), :mod:`hub.cli.tournament` (``trigono
tournament load|sim``; the export is ``trigono export ID``). The pages and the JSON API are :mod:`web.tournament` (docs/api.md, "Tournaments").
"""
