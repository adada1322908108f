"""Identifier case conversion."""
import re


def snake_case(name):
    """fooBar -> foo_bar"""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def camel_case(name):
    """foo_bar -> fooBar"""
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)
