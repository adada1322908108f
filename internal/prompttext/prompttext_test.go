package prompttext

import "testing"

func TestReadable(t *testing.T) {
	for in, want := range map[string]string{
		"<bash-input>ls -la</bash-input>\n<bash-stdout>a.go\nb.go</bash-stdout>\n\nwhat is here":                                                     "! ls -la\nwhat is here",
		"<bash-input>go test</bash-input>\n<bash-stdout></bash-stdout>\n<bash-input>make</bash-input>\n<bash-stderr>no rule</bash-stderr>\n\nfix it": "! go test\n! make\nfix it",
		"<task-notification>build finished</task-notification>":                                                                                      "build finished",
		"fix the <div> in index.html": "fix the <div> in index.html",
		"<b>bold</b> words stay":      "<b>bold</b> words stay",
		"plain\n\ntwo paragraphs":     "plain\n\ntwo paragraphs",
		"<a>one</b>\nnext":            "<a>one</b>\nnext",
	} {
		if got := Readable(in); got != want {
			t.Errorf("Readable(%q) = %q, want %q", in, got, want)
		}
	}
}
