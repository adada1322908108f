import unittest

from duration import parse_duration


class ParseDurationTest(unittest.TestCase):
    def test_single_units(self):
        self.assertEqual(parse_duration("45m"), 45)
        self.assertEqual(parse_duration("2h"), 120)

    def test_compound(self):
        self.assertEqual(parse_duration("1h30m"), 90)

    def test_bad_input(self):
        with self.assertRaises(ValueError):
            parse_duration("1x")
        with self.assertRaises(ValueError):
            parse_duration("15")


if __name__ == "__main__":
    unittest.main()
