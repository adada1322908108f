"""Call a function until it succeeds or the attempts run out."""
import time

from .backoff import delay


def retry(fn, attempts=3, sleep=time.sleep, retry_on=(OSError,)):
    for attempt in range(attempts):
        try:
            return fn()
        except retry_on:
            if attempt == attempts - 1:
                raise
            sleep(delay(attempt))
