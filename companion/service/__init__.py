"""The process around the game: the runtime (its loop, commands and settings), the store, the config,
systemd's notify protocol and the logs."""
