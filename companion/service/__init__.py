"""The process around the game: the runtime, its commands and settings, the store, the config, logs."""
