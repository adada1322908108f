"""Inventory: track stock levels."""

__version__ = "0.3.0"
