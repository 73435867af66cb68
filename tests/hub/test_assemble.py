"""A running hub from options (hub/assemble.py): one argparse group for `trigono hub`,
`python -m web`, the demo and the simulator, read into HubOptions and assembled."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from hub.assemble import HubOptions, add_hub_options, device_links, open_hub
from hub.devices.mqtt_link import MqttProcessTransport, MqttTransport
from hub.devices.serial_link import SerialTransport
from hub.errors import BadInputError
from hub.tables.spec import TableSpec

TABLE = '{"id": "t1", "game": "trigono", "seats": ["Ana", "Ben"], "boards": ["B1"]}'


def options(*argv: str) -> HubOptions:
    parser = argparse.ArgumentParser()
    add_hub_options(parser)
    return HubOptions.from_args(parser.parse_args(list(argv)))


def test_every_option_is_read_once_into_hub_options(tmp_path: Path) -> None:
    got = options("--db", str(tmp_path / "e.db"), "--serial", "/dev/ttyACM0", "/dev/ttyACM1",
                  "--baud", "57600", "--settle", "0.5", "--table", TABLE, "-v",
                  "--mqtt", "broker:1884", "--mqtt-in-process")
    assert (got.serial, got.baud, got.settle_s, got.verbose) == (("/dev/ttyACM0", "/dev/ttyACM1"), 57600, 0.5, True)
    assert got.tables == (TableSpec.from_text(TABLE),) and got.mqtt is not None
    links = device_links(got)
    assert [type(link) for link in links] == [SerialTransport, MqttTransport]
    serial = links[0]
    assert isinstance(serial, SerialTransport) and serial.baudrate == 57600  # was dropped by python -m web
    assert [type(link) for link in device_links(options("--db", "x", "--mqtt", "broker"))] == [MqttProcessTransport]
    assert device_links(options("--db", "x")) == []


def test_a_bad_table_is_a_usage_error_that_names_the_problem(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        options("--db", "x", "--table", '{"id": "t1", "game": "chess"}')
    assert done.value.code == 2 and "unknown game 'chess'" in capsys.readouterr().err


def test_open_hub_creates_the_option_tables_once_across_restarts(tmp_path: Path) -> None:
    opts = options("--db", str(tmp_path / "e.db"), "--table", TABLE, "--settle", "0.3")
    hub = open_hub(opts)
    try:
        view = hub.table_view("t1")
        assert view["settle_s"] == 0.3 and [s["name"] for s in view["seats"]] == ["Ana", "Ben"]
    finally:
        hub.close()
    hub = open_hub(opts)  # a restart with the same --table: the table is kept, not refused
    try:
        assert [t["id"] for t in hub.list_tables()] == ["t1"]
    finally:
        hub.close()


def test_a_table_the_engine_refuses_closes_the_hub_and_says_why(tmp_path: Path) -> None:
    bad = options("--db", str(tmp_path / "e.db"),
                  "--table", '{"game": "trigono", "seats": ["A", "B", "C", "D", "E"], "boards": ["B1"]}')
    with pytest.raises(BadInputError):
        open_hub(bad)


def hub_group_options(parser: argparse.ArgumentParser) -> set[str]:
    group = next(g for g in parser._action_groups if g.title == "hub")
    return {s for action in group._group_actions for s in action.option_strings}


def test_trigono_hub_and_python_m_web_take_the_same_hub_options() -> None:
    from hub.cli.main import build_parser
    from web.__main__ import build_parser as web_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    hub_options = hub_group_options(sub.choices["hub"])
    assert {"--db", "--serial", "--baud", "--mqtt", "--mqtt-in-process", "--table", "--settle"} <= hub_options
    assert hub_group_options(web_parser()) == hub_options  # the copies cannot drift apart again
