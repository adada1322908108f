"""The inventory command."""
import argparse
import sys

from .store import Store


def build_parser():
    p = argparse.ArgumentParser(prog="inventory")
    sub = p.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add stock")
    add.add_argument("item")
    add.add_argument("qty", type=int)
    sub.add_parser("list", help="show stock levels")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    store = Store.open("inventory.json")
    if args.command == "add":
        store.add(args.item, args.qty)
        store.save()
    else:
        for item, qty in sorted(store.items.items()):
            print(f"{qty:5d}  {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
