"""The hub: device links, event store, referee, tables, health, simulator and CLI."""
