"""The web fixtures (a real hub, the app with CSRF on, a logged-in referee) for the
tournament pages."""

from tests.web.conftest import app, client, hub, referee  # noqa: F401
