"""Linear backoff, replaced by backoff.py in 0.4. Not imported anywhere."""


def delay(attempt, step=1.0):
    return step * attempt
