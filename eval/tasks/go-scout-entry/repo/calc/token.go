package calc

import "fmt"

type token struct {
	text string
	num  bool
	val  int
}

// tokenize splits expr into numbers, operators and parentheses.
func tokenize(expr string) ([]token, error) {
	var toks []token
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == ' ':
			i++
		case c >= '0' && c <= '9':
			j, v := i, 0
			for j < len(expr) && expr[j] >= '0' && expr[j] <= '9' {
				v = v*10 + int(expr[j]-'0')
				j++
			}
			toks = append(toks, token{text: expr[i:j], num: true, val: v})
			i = j
		case c == '+' || c == '-' || c == '*' || c == '/' || c == '(' || c == ')':
			toks = append(toks, token{text: string(c)})
			i++
		default:
			return nil, fmt.Errorf("bad character %q at %d", c, i)
		}
	}
	return toks, nil
}
