"""Tables: one game each, the table set, the Trigono referee, layouts, specs, bots, wording."""
