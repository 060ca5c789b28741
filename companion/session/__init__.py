"""What happens at the table: a Session (the game, the hands at it, who sits where, the series), the
hands' presses turned into actions, what the LEDs show, and game records. Pure, like the games below it."""
