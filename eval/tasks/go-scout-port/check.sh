# The outcome holds when the answer (on stdin) names the default port, 8421 — not the
# port the test overrides it with.
set -eu
answer=$(cat)
if ! printf '%s\n' "$answer" | grep -Eq '(^|[^0-9])8421([^0-9]|$)'; then
	echo "the answer does not name port 8421"
	exit 1
fi
