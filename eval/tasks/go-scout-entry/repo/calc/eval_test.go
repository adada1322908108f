package calc

import (
	"errors"
	"testing"
)

func TestEval(t *testing.T) {
	cases := map[string]int{
		"1":            1,
		"2 + 3 * 4":    14,
		"(2 + 3) * 4":  20,
		"10 / 3":       3,
		"7 - 2 - 1":    4,
		"((1))":        1,
		"100 / 10 / 5": 2,
	}
	for in, want := range cases {
		got, err := Eval(in)
		if err != nil || got != want {
			t.Errorf("Eval(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestDivideByZero(t *testing.T) {
	if _, err := Eval("1 / 0"); !errors.Is(err, ErrDivideByZero) {
		t.Fatalf("err = %v, want ErrDivideByZero", err)
	}
}
