"""Settings from the environment (.env is loaded by the deploy script)."""
import os


def api_key():
    return os.environ.get("API_KEY", "")


def smtp_password():
    return os.environ.get("SMTP_PASSWORD", "")
