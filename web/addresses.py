"""Where the web is reached: the machine's LAN addresses and what a bind serves."""

from __future__ import annotations

import socket
import struct
from typing import Any


def lan_addresses() -> list[tuple[str, str]]:
    """``(interface, IPv4 address)`` of every interface but loopback — what phones on
    the hall's network can reach. Linux asks each interface (SIOCGIFADDR); elsewhere,
    the address this machine would use towards the outside (no packet is sent)."""
    found: list[tuple[str, str]] = []
    try:
        import fcntl

        for _index, name in socket.if_nameindex():
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                try:
                    packed = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
                except OSError:  # down, or no IPv4 address
                    continue
            address = socket.inet_ntoa(packed[20:24])
            if not address.startswith("127."):
                found.append((name, address))
    except (ImportError, OSError, AttributeError):
        pass
    if not found:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routing only, nothing sent
                address = probe.getsockname()[0]
            except OSError:
                address = ""
        if address and not address.startswith("127.") and address != "0.0.0.0":
            found.append(("default route", address))
    return found


SIOCGIFADDR = 0x8915


def where_served(host: str, url: str) -> dict[str, Any]:
    """What to tell the person starting the hub: which interfaces are served and the
    addresses phones can use (seat links and the console's links are built from the
    address the referee's browser used, so open the console at one of these)."""
    scheme, _, rest = url.partition("://")
    port = rest.rsplit(":", 1)[1]
    if host in ("0.0.0.0", "", "::"):
        lan = [(name, f"{scheme}://{address}:{port}/") for name, address in lan_addresses()]
        return {"serving": f"every interface ({host or '0.0.0.0'}), port {port}",
                "phones": [u for _, u in lan], "interfaces": {name: u for name, u in lan}}
    if host.startswith("127.") or host in ("localhost", "::1"):
        return {"serving": f"only {host} (this machine: phones cannot reach it; use --host 0.0.0.0)",
                "phones": [], "interfaces": {}}
    return {"serving": f"only {host}, port {port}", "phones": [f"{scheme}://{host}:{port}/"], "interfaces": {}}


# -- uvicorn ------------------------------------------------------------------------------
