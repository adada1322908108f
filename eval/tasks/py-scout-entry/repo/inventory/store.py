"""Persistent stock levels, kept in a JSON file."""
import json
import os


class Store:
    def __init__(self, path, items=None):
        self.path = path
        self.items = dict(items or {})

    @classmethod
    def open(cls, path):
        if not os.path.exists(path):
            return cls(path)
        with open(path) as f:
            return cls(path, json.load(f))

    def add(self, item, qty):
        if qty <= 0:
            raise ValueError("qty must be positive")
        self.items[item] = self.items.get(item, 0) + qty

    def save(self):
        with open(self.path, "w") as f:
            json.dump(self.items, f, indent=2, sort_keys=True)
