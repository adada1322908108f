package tui

import (
	"strings"
	"unicode"
)

// A small highlighter for code blocks: comments, strings, numbers and the keywords of
// the languages a coding agent shows most. It stands in for chroma, whose lexer and
// style tables are all parsed when the program starts (about 4 MB, in every run of the
// binary, headless ones included); see the package comment.

var keywordSets = map[string][]string{
	"go":     {"break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select", "struct", "switch", "type", "var", "nil", "true", "false"},
	"python": {"and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "None", "True", "False"},
	"js":     {"async", "await", "break", "case", "catch", "class", "const", "continue", "default", "delete", "do", "else", "export", "extends", "finally", "for", "function", "if", "import", "in", "instanceof", "let", "new", "return", "switch", "this", "throw", "try", "typeof", "var", "void", "while", "yield", "null", "undefined", "true", "false", "interface", "type", "enum"},
	"rust":   {"as", "async", "await", "break", "const", "continue", "crate", "else", "enum", "extern", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "type", "unsafe", "use", "where", "while", "true", "false"},
	"sh":     {"if", "then", "else", "elif", "fi", "for", "while", "do", "done", "case", "esac", "in", "function", "return", "export", "local"},
	"c":      {"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern", "float", "for", "goto", "if", "int", "long", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "while", "class", "public", "private", "protected", "new", "namespace", "template", "true", "false", "nullptr"},
}

var langAlias = map[string]string{
	"golang": "go", "py": "python", "python3": "python", "javascript": "js", "ts": "js", "typescript": "js",
	"jsx": "js", "tsx": "js", "rs": "rust", "bash": "sh", "shell": "sh", "zsh": "sh", "console": "sh",
	"cpp": "c", "c++": "c", "h": "c", "java": "c", "cs": "c", "csharp": "c", "kotlin": "c", "swift": "c",
}

type langSpec struct {
	keywords    map[string]bool
	lineComment []string
}

func specFor(lang string) *langSpec {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if a, ok := langAlias[lang]; ok {
		lang = a
	}
	kws, ok := keywordSets[lang]
	if !ok {
		return nil
	}
	sp := &langSpec{keywords: map[string]bool{}}
	for _, k := range kws {
		sp.keywords[k] = true
	}
	switch lang {
	case "python", "sh":
		sp.lineComment = []string{"#"}
	default:
		sp.lineComment = []string{"//"}
	}
	return sp
}

// highlight colours one line of code in lang; unknown languages are returned as they are.
// Block comments spanning lines are not tracked: a line is coloured on its own.
func highlight(line string, sp *langSpec, t *theme) string {
	if sp == nil || !t.color {
		return line
	}
	var b strings.Builder
	rs := []rune(line)
	for i := 0; i < len(rs); {
		c := rs[i]
		rest := string(rs[i:])
		switch {
		case hasAnyPrefix(rest, sp.lineComment) || strings.HasPrefix(rest, "/*"):
			b.WriteString(t.comment.Render(rest))
			return b.String()
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(rs) && rs[j] != c {
				if rs[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(rs))
			b.WriteString(t.str.Render(string(rs[i:j])))
			i = j
		case unicode.IsDigit(c):
			j := i
			for j < len(rs) && (unicode.IsDigit(rs[j]) || unicode.IsLetter(rs[j]) || rs[j] == '.' || rs[j] == '_') {
				j++
			}
			b.WriteString(t.number.Render(string(rs[i:j])))
			i = j
		case unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_') {
				j++
			}
			w := string(rs[i:j])
			if sp.keywords[w] {
				w = t.keyword.Render(w)
			}
			b.WriteString(w)
			i = j
		default:
			b.WriteRune(c)
			i++
		}
	}
	return b.String()
}

func hasAnyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
