# The outcome holds when the old name is gone from every Go file, the program builds and
# the tests pass.
set -eu
if grep -rn --include='*.go' 'CalcTotal' .; then
	echo "CalcTotal is still named above"
	exit 1
fi
go vet ./...
go test ./...
