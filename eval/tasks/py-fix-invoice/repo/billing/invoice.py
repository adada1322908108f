"""Invoices: lines, subtotal, tax and total, in Decimal."""
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


@dataclass
class Line:
    description: str
    qty: int
    unit_price: Decimal

    def amount(self):
        return self.unit_price * self.qty


@dataclass
class Invoice:
    lines: list = field(default_factory=list)
    tax_rate: Decimal = Decimal("0.20")

    def subtotal(self):
        return sum((line.amount() for line in self.lines[1:]), Decimal("0"))

    def tax(self):
        return (self.subtotal() * self.tax_rate).quantize(CENT, rounding=ROUND_HALF_UP)

    def total(self):
        return self.subtotal() + self.tax()
