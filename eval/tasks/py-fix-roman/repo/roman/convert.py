"""Integer <-> Roman numeral conversion (1..3999)."""

_TABLE = [
    (1000, "M"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
]

_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def to_roman(n):
    """Return the Roman numeral for n, 1 <= n <= 3999."""
    if not 1 <= n <= 3999:
        raise ValueError(f"{n} is out of range")
    out = []
    for value, numeral in _TABLE:
        while n >= value:
            out.append(numeral)
            n -= value
    return "".join(out)


def from_roman(s):
    """Return the integer value of the Roman numeral s."""
    total = 0
    for i, ch in enumerate(s):
        v = _VALUES[ch]
        if i + 1 < len(s) and _VALUES[s[i + 1]] > v:
            total -= v
        else:
            total += v
    return total
