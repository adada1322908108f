import unittest

from textutils.case import camel_case, snake_case


class CaseTest(unittest.TestCase):
    def test_snake(self):
        self.assertEqual(snake_case("parseHttpRequest"), "parse_http_request")

    def test_camel(self):
        self.assertEqual(camel_case("parse_http_request"), "parseHttpRequest")


if __name__ == "__main__":
    unittest.main()
