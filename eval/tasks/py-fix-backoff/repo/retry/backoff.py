"""Capped exponential backoff."""


def delay(attempt, base=0.5, cap=30.0):
    """Seconds to wait before retry number attempt (0 = the first retry).

    The first retry waits base seconds, and every later one twice as long as the
    one before, never more than cap.
    """
    if attempt < 0:
        raise ValueError("attempt must be >= 0")
    return min(cap, base * 2 ** (attempt + 1))
