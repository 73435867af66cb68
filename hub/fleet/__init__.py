"""The fleet of sensor boards (issue 33): one row a board sorted by trouble, the actions
on a board, and staged firmware rollouts (the transfer itself: :mod:`hub.fleet.transfer`)."""
