"""An in-memory user store."""

_USERS = {1: "ada", 2: "grace", 3: "linus"}


def get_usr(user_id):
    """Return the name of the user with user_id, or None."""
    return _USERS.get(user_id)


def all_ids():
    return sorted(_USERS)
