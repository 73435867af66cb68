"""The board fleet (issue 33): signed update bundles (:mod:`hub.fleet.bundle`) and the
transfer of one bundle to one board (:mod:`hub.fleet.transfer`)."""
