import io
import unittest
from decimal import Decimal

from billing.csv_import import read_lines
from billing.invoice import Invoice, Line


class InvoiceTest(unittest.TestCase):
    def test_subtotal_counts_every_line(self):
        inv = Invoice([Line("pen", 2, Decimal("1.50")), Line("pad", 1, Decimal("4.00"))])
        self.assertEqual(inv.subtotal(), Decimal("7.00"))

    def test_total_with_tax(self):
        inv = Invoice([Line("book", 1, Decimal("10.00"))])
        self.assertEqual(inv.tax(), Decimal("2.00"))
        self.assertEqual(inv.total(), Decimal("12.00"))

    def test_csv_import(self):
        f = io.StringIO("description,qty,price\npen,2,1.50\npad,1,4.00\n")
        inv = Invoice(read_lines(f))
        self.assertEqual(inv.subtotal(), Decimal("7.00"))


if __name__ == "__main__":
    unittest.main()
