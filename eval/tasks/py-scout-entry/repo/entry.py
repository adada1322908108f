#!/usr/bin/env python3
"""Command-line entry for the inventory tool."""
import sys

from inventory.legacy import run


def main():
    return run(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
