"""GRYB Companion: the rules of the GRYB game system, and the program that plays them on a lit board."""

__version__ = "0.1.0"
