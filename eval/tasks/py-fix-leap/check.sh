# The outcome holds when the tests pass and is_leap agrees with the standard library on
# four centuries of years.
set -eu
python3 -B -m unittest -q 2>&1
python3 -B -c '
import calendar
from calendar_util import is_leap
bad = [y for y in range(1600, 2401) if is_leap(y) != calendar.isleap(y)]
assert not bad, "is_leap is wrong for %s" % bad[:5]
'
