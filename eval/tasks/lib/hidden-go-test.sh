# hidden-go-test.sh TASKDIR PKG TEST: a Go fix task's check. The outcome holds when the
# repository's own tests pass in the working copy (the current folder) and TEST does too,
# run from TASKDIR/hidden_test.go.txt copied into package folder PKG of a copy made aside.
set -eu
task=$1 pkg=$2 test=$3
go test ./...
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R . "$tmp/repo"
cp "$task/hidden_test.go.txt" "$tmp/repo/$pkg/hidden_test.go"
cd "$tmp/repo"
go test -run "$test" "./$pkg"
