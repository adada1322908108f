package skill

import (
	"reflect"
	"testing"
)

func TestSubstituteArgs(t *testing.T) {
	for _, c := range []struct{ body, args, want string }{
		{"Fix #$ARGUMENTS now", "123", "Fix #123 now"},
		{"PR $0 priority $1 by $2", `456 high "Jane Doe"`, "PR 456 priority high by Jane Doe"},
		{"first $ARGUMENTS[0], second $ARGUMENTS[1], all: $ARGUMENTS", "a 'b c'", "first a, second b c, all: a 'b c'"},
		{"missing $3 stays; $1abc is no placeholder", "x y", "missing $3 stays; $1abc is no placeholder"},
		{"no placeholder", "some args", "no placeholder\n\nARGUMENTS: some args"},
		{"no placeholder", "", "no placeholder"},
		{"cost $5 flat", "", "cost $5 flat"},
		{"args hold $ARGUMENTS: $ARGUMENTS", "$ARGUMENTS $0", "args hold $ARGUMENTS $0: $ARGUMENTS $0"},
	} {
		if got := substituteArgs(c.body, c.args); got != c.want {
			t.Errorf("substituteArgs(%q, %q) = %q, want %q", c.body, c.args, got, c.want)
		}
	}
	if got := splitArgs(`a "b \"c\"" 'd e' f\ g "unterminated`); !reflect.DeepEqual(got, []string{"a", `"b`, `\"c\""`, "'d", "e'", `f\`, "g", `"unterminated`}) {
		t.Errorf("unbalanced quotes split on white space: %q", got)
	}
	if got := splitArgs(`a "b \"c\"" 'd e' f\ g`); !reflect.DeepEqual(got, []string{"a", `b "c"`, "d e", "f g"}) {
		t.Errorf("split = %q", got)
	}
}
