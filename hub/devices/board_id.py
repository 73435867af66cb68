"""Which board ids the hub takes (issue 32.11).

A board id is part of page addresses (``/admin/boards/<board>/ignore``) and of MQTT
topics. The codec (:func:`firmware.protocol.is_name`) already refuses what cannot
travel in a topic or a serial frame — empty, longer than 32, control characters, ``/``,
``+``, ``#``, ``$``, ``*``, space, ``"``, ``\\``. What it lets through and a URL cannot
carry are the dot segments ``.`` and ``..``: a browser and the web server resolve them
away, so the admin's "ignore" button for board ``..`` posted to a 404. The hub refuses
them at the door (the serial and MQTT links count them as rejected input, never under
a board's name) and in the admin's forms (a table binding them); the firmware is left
as it is.

>>> refusal("B1") is None, refusal("..")
(True, "board id '..' cannot be part of a page address")
>>> print(refusal(""))
board id '' is not 1-32 printable characters (none of / + # $ * " \\ or a space)
"""

from __future__ import annotations

from firmware import protocol

DOT_SEGMENTS = (".", "..")


def refusal(board: object) -> str | None:
    """Why the hub does not take ``board`` as a board id, or None when it does."""
    if not protocol.is_name(board):
        shown = " ".join(ch for ch in protocol.BAD_NAME_CHARS if ch != " ")
        return f"board id {board!r} is not 1-32 printable characters (none of {shown} or a space)"
    if board in DOT_SEGMENTS:
        return f"board id {board!r} cannot be part of a page address"
    return None
