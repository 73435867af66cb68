"""The board fleet (issue 33): one row a board sorted by trouble (:mod:`hub.fleet.view`),
the actions on a board and staged rollouts (:mod:`hub.fleet.service`,
:mod:`hub.fleet.rollout`), signed update bundles (:mod:`hub.fleet.bundle`) and the
transfer of one bundle to one board (:mod:`hub.fleet.transfer`)."""
