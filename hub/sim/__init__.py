"""The simulated sensor mode (issue 5): simulated players throw, simulated palets cross
simulated beams, the firmware's own :class:`firmware.node.Node` classifies them and
reports to the hub over a real pseudo-terminal, and a simulated referee answers what
sensors cannot see through :meth:`hub.facade.Hub.submit`.

- :mod:`hub.sim.model`: the throw model and the beam edge timelines;
- :mod:`hub.sim.board`: a simulated board (firmware node, simulated pins, pty link);
- :mod:`hub.sim.runner`: tables, players and the simulated referee, run to the end.

Run it::

    trigono sim --tables 3 --players 3 --seed 7              # as fast as possible, ptys
    trigono sim --tables 1 --players 4 --layout hexagon --speed 1
    trigono sim --link mqtt --mqtt 127.0.0.1:1883 --db sim.db
    python -m web.demo            # scripts/demo: hub + web pages + a live simulated event
"""
