"""What happens at the table: the Session, the hands, seating, the LEDs' picture, game records. Pure."""
