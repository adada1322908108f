package llm

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Web search on the provider's side: a request with WebSearch set lets the model search
// the web while it answers (Anthropic's web_search server tool). The answer then carries
// server_tool_use blocks (the searches the model made) each followed by its
// web_search_tool_result (the results, or an error); both stay in the conversation as
// they came, so a continued turn (stop_reason pause_turn) is sent back whole.

// Block types of a server-side web search, spelled as on the Anthropic wire.
const (
	BlockServerToolUse   = "server_tool_use"
	BlockWebSearchResult = "web_search_tool_result"
	// BlockWebSearchHit is one result inside a web_search_tool_result's content.
	BlockWebSearchHit = "web_search_result"
	// BlockWebSearchError is a web_search_tool_result's content when the search failed
	// (ErrorCode says why). On the wire the content is then this one object, not a list.
	BlockWebSearchError = "web_search_tool_result_error"
)

// WebSearch asks the provider to let the model search the web, at most MaxUses times in
// the request (0: the provider's default), with results only from AllowedDomains or
// never from BlockedDomains (not both; see CheckSearchDomain for an entry's form).
type WebSearch struct {
	MaxUses        int
	AllowedDomains []string
	BlockedDomains []string
}

// ErrNoWebSearch is what a provider returns (wrapped) for a request with WebSearch set
// when it has no web search; it sends nothing then.
var ErrNoWebSearch = errors.New("this provider has no web search")

// CheckSearchDomain checks one entry of an allowed or blocked domain list as Anthropic's
// web search takes it: a host name without a scheme (example.com, which covers its
// subdomains; docs.example.com only that one), optionally followed by a path
// (example.com/blog, covering what is below it) in which one * may stand for any text.
func CheckSearchDomain(entry string) error {
	e := strings.TrimSpace(entry)
	host, path, _ := strings.Cut(e, "/")
	switch {
	case e == "":
		return errors.New("a domain must not be empty")
	case strings.Contains(e, "://"):
		return fmt.Errorf("%q has a scheme: give the domain alone (example.com, not https://example.com)", entry)
	case strings.Contains(host, "*"):
		return fmt.Errorf("%q has a * in its host: a domain covers its subdomains already (give example.com, not *.example.com); a * may stand only in the path", entry)
	case strings.Count(path, "*") > 1:
		return fmt.Errorf("%q has more than one *: one is allowed, in the path", entry)
	case strings.ContainsAny(e, " \t\n?#@:"):
		return fmt.Errorf("%q is not a domain: give a host name, optionally with a path (example.com/blog)", entry)
	case !strings.Contains(host, ".") && host != "localhost":
		return fmt.Errorf("%q is not a domain: a host name has a dot (example.com)", entry)
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return fmt.Errorf("%q is not a valid host name", entry)
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c > 127) {
				return fmt.Errorf("%q is not a valid host name (%q may not appear in one)", entry, c)
			}
		}
	}
	return nil
}

// SearchDomainMatches reports whether the page at rawURL falls under entry (a valid
// CheckSearchDomain entry): its host is entry's host or below it, and its path starts
// with entry's path, where a * matches any text.
func SearchDomainMatches(entry, rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return false
	}
	host, path, hasPath := strings.Cut(strings.ToLower(strings.TrimSpace(entry)), "/")
	h := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if h != host && !strings.HasSuffix(h, "."+host) {
		return false
	}
	if !hasPath || path == "" {
		return true
	}
	page := strings.TrimPrefix(strings.ToLower(u.EscapedPath()), "/")
	before, after, star := strings.Cut(path, "*")
	if !star {
		return page == path || strings.HasPrefix(page, strings.TrimSuffix(path, "/")+"/")
	}
	return strings.HasPrefix(page, before) && strings.Contains(page[len(before):], after)
}
