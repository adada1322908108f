package slug

import "testing"

func TestSlugifyBasic(t *testing.T) {
	cases := map[string]string{
		"Hello World":      "hello-world",
		"Go 1.22 released": "go-1-22-released",
		"  leading space":  "leading-space",
	}
	for in, want := range cases {
		if got := Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSlugifyPunctuation(t *testing.T) {
	cases := map[string]string{
		"Hello, World!":      "hello-world",
		"What's new?":        "what-s-new",
		"Ready... set... go": "ready-set-go",
	}
	for in, want := range cases {
		if got := Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
}
