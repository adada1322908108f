# The outcome holds when the tests pass and Clamp is right on cases the tests do not name.
dir=$(dirname "$0")
exec sh "$dir/../lib/hidden-go-test.sh" "$dir" num TestClampHidden
