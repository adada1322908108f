# The outcome holds when the old name is gone from every Python file and the tests pass.
set -eu
if grep -rnw --include='*.py' 'get_usr' .; then
	echo "get_usr is still named above"
	exit 1
fi
python3 -B -m unittest discover -s tests -t . -q 2>&1
