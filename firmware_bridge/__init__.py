"""The link between the Pico that scans the node buttons and the Pi (docs/firmware.md). Imports no game."""
