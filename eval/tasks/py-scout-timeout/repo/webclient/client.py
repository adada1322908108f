import urllib.request

from webclient import settings


class Client:
    """Fetches URLs with a timeout and a user agent."""

    def __init__(self, timeout=None, agent="webclient/1.0"):
        self.timeout = settings.DEFAULT_TIMEOUT if timeout is None else timeout
        self.agent = agent

    def get(self, url):
        req = urllib.request.Request(url, headers={"User-Agent": self.agent})
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            return resp.read()
