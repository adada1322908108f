"""Greedy word wrapping."""


def wrap(text, width):
    """Split text into lines of at most width characters, breaking between words."""
    lines, current = [], ""
    for word in text.split():
        candidate = word if not current else current + " " + word
        if len(candidate) < width:
            current = candidate
        else:
            if current:
                lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines
