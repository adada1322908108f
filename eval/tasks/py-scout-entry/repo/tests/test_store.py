import os
import tempfile
import unittest

from inventory.store import Store


class StoreTest(unittest.TestCase):
    def test_add_accumulates(self):
        s = Store("unused.json")
        s.add("widget", 2)
        s.add("widget", 3)
        self.assertEqual(s.items, {"widget": 5})

    def test_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "inv.json")
            s = Store.open(path)
            s.add("bolt", 7)
            s.save()
            self.assertEqual(Store.open(path).items, {"bolt": 7})


if __name__ == "__main__":
    unittest.main()
