"""Broker addresses as the command line and config files write them."""

from __future__ import annotations

import argparse


def parse_hostport(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (port 1883 when left out).

    >>> parse_hostport("127.0.0.1:1884"), parse_hostport("broker")
    (('127.0.0.1', 1884), ('broker', 1883))
    """
    host, _, port = text.rpartition(":")
    if not host:
        return text, 1883
    try:
        return host, int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad HOST:PORT {text!r}") from None
