import unittest

from users.report import report
from users.store import get_user


class UsersTest(unittest.TestCase):
    def test_get_user(self):
        self.assertEqual(get_user(2), "grace")
        self.assertIsNone(get_user(9))

    def test_report(self):
        self.assertEqual(report().splitlines()[0], "1 ada")


if __name__ == "__main__":
    unittest.main()
