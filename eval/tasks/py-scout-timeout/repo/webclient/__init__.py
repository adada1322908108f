"""A tiny HTTP client wrapper."""

from webclient.client import Client

__all__ = ["Client"]
