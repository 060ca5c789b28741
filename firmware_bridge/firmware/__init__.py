"""The MicroPython program for the Raspberry Pi Pico that scans the node-button matrix.

On the Pico these files sit at the root of the filesystem next to ``protocol.py`` and import each other
by plain module names; under CPython they are this package and import through ``firmware_bridge``.
See docs/firmware.md for the deploy steps.
"""
