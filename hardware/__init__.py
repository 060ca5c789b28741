"""Hardware interfaces and their backends (LEDs, node buttons, control panel), each with a simulator."""
