"""Parse short duration strings such as "1h30m" into minutes."""

UNITS = {"d": 24 * 60, "h": 60, "m": 1}


def parse_duration(text):
    """Return the number of minutes in text: "1h30m" is 90, "2d" is 2880."""
    total = 0
    number = ""
    for ch in text.strip():
        if ch.isdigit():
            number += ch
        elif ch in UNITS and number:
            total = int(number) * UNITS[ch]
            number = ""
        else:
            raise ValueError("bad duration %r" % text)
    if number:
        raise ValueError("missing unit in %r" % text)
    return total
