# The outcome holds when the tests pass and Clamp is right on cases the tests do not
# name: the working copy is copied aside with one more test file.
set -eu
go test ./...
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R . "$tmp/repo"
cp "$(dirname "$0")/hidden_test.go.txt" "$tmp/repo/num/hidden_test.go"
cd "$tmp/repo"
go test -run TestClampHidden ./num
