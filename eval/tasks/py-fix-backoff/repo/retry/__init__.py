from .backoff import delay
from .runner import retry

__all__ = ["delay", "retry"]
