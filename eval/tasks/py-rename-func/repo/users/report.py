from users.store import all_ids, get_usr


def report():
    """One line per user: id and name."""
    return "\n".join("%d %s" % (i, get_usr(i)) for i in all_ids())
