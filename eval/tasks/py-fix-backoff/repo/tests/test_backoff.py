import unittest

from retry.backoff import delay


class DelayTest(unittest.TestCase):
    def test_doubles_from_base(self):
        self.assertEqual([delay(a) for a in range(4)], [0.5, 1.0, 2.0, 4.0])

    def test_capped(self):
        self.assertEqual(delay(20), 30.0)

    def test_negative(self):
        with self.assertRaises(ValueError):
            delay(-1)


if __name__ == "__main__":
    unittest.main()
