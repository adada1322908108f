package llm

import "testing"

// Domain list entries are read as Anthropic's web search documents them: a host without
// a scheme covering its subdomains, a path covering what is below it, one * in the path.
func TestSearchDomains(t *testing.T) {
	for entry, ok := range map[string]bool{
		"example.com": true, "docs.example.com": true, "example.com/blog": true, "example.com/*/articles": true,
		"localhost": true, "bücher.de": true,
		"": false, "https://example.com": false, "*.example.com": false, "ex*.com": false, "example.com/*/news/*": false,
		"example": false, "example.com:8080": false, "exa mple.com": false, "example..com": false, "-x.com": false, "example.com?q=1": false,
	} {
		if err := CheckSearchDomain(entry); (err == nil) != ok {
			t.Errorf("CheckSearchDomain(%q) = %v, want ok %v", entry, err, ok)
		}
	}
	for _, c := range []struct {
		entry, url string
		want       bool
	}{
		{"example.com", "https://example.com/a", true},
		{"example.com", "https://docs.example.com/a", true},
		{"example.com", "https://notexample.com/a", false},
		{"docs.example.com", "https://example.com/a", false},
		{"docs.example.com", "https://api.example.com/a", false},
		{"Example.COM", "https://EXAMPLE.com./x", true},
		{"example.com/blog", "https://example.com/blog/post-1", true},
		{"example.com/blog", "https://example.com/blog", true},
		{"example.com/blog", "https://example.com/blogger", false},
		{"example.com/blog", "https://example.com/news", false},
		{"example.com/*/articles", "https://example.com/en/articles/1", true},
		{"example.com/*/articles", "https://example.com/en/news/1", false},
		{"example.com", "not a url", false},
	} {
		if got := SearchDomainMatches(c.entry, c.url); got != c.want {
			t.Errorf("SearchDomainMatches(%q, %q) = %v", c.entry, c.url, got)
		}
	}
}
