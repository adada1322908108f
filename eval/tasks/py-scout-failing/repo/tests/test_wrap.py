import unittest

from textutils.wrap import wrap


class WrapTest(unittest.TestCase):
    def test_wrap_short_lines(self):
        self.assertEqual(wrap("one two three", 8), ["one two", "three"])

    def test_wrap_exact_width(self):
        # a line may be exactly width characters long
        self.assertEqual(wrap("aaa bbb ccc", 7), ["aaa bbb", "ccc"])

    def test_wrap_long_word(self):
        self.assertEqual(wrap("supercalifragilistic is long", 10), ["supercalifragilistic", "is long"])


if __name__ == "__main__":
    unittest.main()
