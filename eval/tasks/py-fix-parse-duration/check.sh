# The outcome holds when the tests pass and compound durations the tests do not name
# add up too (a fix that special-cases "1h30m" fails here).
set -eu
python3 -B -m unittest -q 2>&1
python3 -B -c '
from duration import parse_duration as p
for text, want in [("1d2h5m", 1565), ("3h", 180), ("10m5m", 15), ("2h0m", 120)]:
    got = p(text)
    assert got == want, "parse_duration(%r) is %r, want %r" % (text, got, want)
'
