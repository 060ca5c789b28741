"""Boards linked through an MQTT broker: one match played on several boards (docs/linking.md)."""
