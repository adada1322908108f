# The outcome holds when the answer (on stdin) names the default timeout, 12.5 seconds.
set -eu
answer=$(cat)
if ! printf '%s\n' "$answer" | grep -Eq '(^|[^0-9.])12\.5([^0-9]|$)'; then
	echo "the answer does not name the 12.5 second default"
	exit 1
fi
