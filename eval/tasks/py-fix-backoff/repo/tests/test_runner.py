import unittest

from retry.runner import retry


class RetryTest(unittest.TestCase):
    def test_retries_until_success(self):
        calls = []

        def flaky():
            calls.append(1)
            if len(calls) < 3:
                raise OSError("busy")
            return "done"

        self.assertEqual(retry(flaky, attempts=5, sleep=lambda s: None), "done")
        self.assertEqual(len(calls), 3)

    def test_gives_up(self):
        def broken():
            raise OSError("down")

        with self.assertRaises(OSError):
            retry(broken, attempts=2, sleep=lambda s: None)


if __name__ == "__main__":
    unittest.main()
