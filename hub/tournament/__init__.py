"""Tournaments from registration to podium, on the hub's append-only log (issue 16).

Pure logic (no threads, no I/O):

- :mod:`hub.tournament.model` — the spec, players, stations, matches, rankings; typed errors;
- :mod:`hub.tournament.formats` — draws: Swiss pairs (networkx maximum-weight matching) and
  groups of k, pools, elimination brackets with seeding and byes;
- :mod:`hub.tournament.standings` — points per placing and configurable tie-breaks;
- :mod:`hub.tournament.ratings` — OpenSkill (Plackett-Luce) ratings across events;
- :mod:`hub.tournament.state` — :class:`~hub.tournament.state.Tournament`, the fold of the
  log's entries; with its methods of :mod:`hub.tournament.swiss` (rounds and redraws),
  :mod:`hub.tournament.scheduling` (stations, calls, the director's follow-ups) and
  :mod:`hub.tournament.placings` (standings, bracket places, ranking, podium).

On a running hub: :mod:`hub.tournament.service` (durable, thread-safe, fed by the tables
it opens: :mod:`hub.tournament.tables`), :mod:`hub.tournament.sim` and
:mod:`hub.tournament.demo` (simulated ones), :mod:`hub.cli.tournament` (``trigono
tournament load|sim``; the export is ``trigono export ID``). The pages and the JSON API are :mod:`web.tournament` (docs/api.md, "Tournaments").
"""
