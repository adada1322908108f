# Seconds to wait for a server before giving up.
DEFAULT_TIMEOUT = 12.5

# How many times a failed request is retried.
RETRIES = 3
