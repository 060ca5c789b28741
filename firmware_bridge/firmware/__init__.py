"""The Pico's MicroPython program; on the Pico its files sit at the root and import each other by name."""
