import unittest

from roman import from_roman, to_roman


class ToRomanTest(unittest.TestCase):
    def test_simple(self):
        self.assertEqual(to_roman(3), "III")
        self.assertEqual(to_roman(58), "LVIII")

    def test_subtractive(self):
        self.assertEqual(to_roman(4), "IV")
        self.assertEqual(to_roman(1994), "MCMXCIV")
        self.assertEqual(to_roman(900), "CM")

    def test_out_of_range(self):
        with self.assertRaises(ValueError):
            to_roman(0)


class FromRomanTest(unittest.TestCase):
    def test_values(self):
        self.assertEqual(from_roman("MCMXCIV"), 1994)
        self.assertEqual(from_roman("XLII"), 42)

    def test_round_trip(self):
        for n in range(1, 400):
            self.assertEqual(from_roman(to_roman(n)), n)


if __name__ == "__main__":
    unittest.main()
