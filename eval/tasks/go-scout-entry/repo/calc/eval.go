// Package calc evaluates integer expressions with + - * / and parentheses.
package calc

import (
	"errors"
	"fmt"
)

// ErrDivideByZero is returned when the right side of a division is zero.
var ErrDivideByZero = errors.New("division by zero")

// Eval parses and evaluates expr.
func Eval(expr string) (int, error) {
	toks, err := tokenize(expr)
	if err != nil {
		return 0, err
	}
	p := &parser{toks: toks}
	n, err := p.expr()
	if err != nil {
		return 0, err
	}
	if p.pos != len(p.toks) {
		return 0, fmt.Errorf("unexpected %q", p.toks[p.pos].text)
	}
	return n, nil
}

type parser struct {
	toks []token
	pos  int
}

func (p *parser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos].text
	}
	return ""
}

// expr = term { ("+" | "-") term }
func (p *parser) expr() (int, error) {
	n, err := p.term()
	for err == nil && (p.peek() == "+" || p.peek() == "-") {
		op := p.toks[p.pos].text
		p.pos++
		var m int
		m, err = p.term()
		if op == "+" {
			n += m
		} else {
			n -= m
		}
	}
	return n, err
}

// term = factor { ("*" | "/") factor }
func (p *parser) term() (int, error) {
	n, err := p.factor()
	for err == nil && (p.peek() == "*" || p.peek() == "/") {
		op := p.toks[p.pos].text
		p.pos++
		var m int
		m, err = p.factor()
		if err != nil {
			break
		}
		if op == "*" {
			n *= m
		} else if m == 0 {
			return 0, ErrDivideByZero
		} else {
			n /= m
		}
	}
	return n, err
}

// factor = number | "(" expr ")"
func (p *parser) factor() (int, error) {
	if p.pos >= len(p.toks) {
		return 0, errors.New("unexpected end of expression")
	}
	t := p.toks[p.pos]
	p.pos++
	switch {
	case t.text == "(":
		n, err := p.expr()
		if err != nil {
			return 0, err
		}
		if p.peek() != ")" {
			return 0, errors.New("missing )")
		}
		p.pos++
		return n, nil
	case t.num:
		return t.val, nil
	}
	return 0, fmt.Errorf("unexpected %q", t.text)
}
