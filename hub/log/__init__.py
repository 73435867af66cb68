"""The event log: the store (SQLite, PostgreSQL), standby, the change feed."""
