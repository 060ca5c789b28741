"""The link between the Pico that scans the node buttons and the Pi.

``protocol`` (framing, CRC, messages; shared with the firmware), ``firmware/`` (the MicroPython program for
the Pico), ``standin_machine`` (MicroPython's ``machine`` module with a simulated board, for CPython),
``emulator`` (the firmware on a thread behind a pty), ``link`` (the host's protocol logic without I/O) and
``client`` (the host client on pyserial). Nothing here imports the game.
"""
