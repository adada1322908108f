"""Read invoice lines from a CSV export with a header row."""
import csv
from decimal import Decimal

from .invoice import Line


def read_lines(f):
    rows = list(csv.reader(f))
    lines = []
    for row in rows[1:]:  # skip the header
        desc, qty, price = row
        lines.append(Line(desc, int(qty), Decimal(price)))
    return lines
