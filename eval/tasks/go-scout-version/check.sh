# The outcome holds when the answer (on stdin) names the version greet prints, 2.4.1,
# and not only the previous one.
set -eu
answer=$(cat)
if ! printf '%s\n' "$answer" | grep -Fq '2.4.1'; then
	echo "the answer does not name version 2.4.1"
	exit 1
fi
