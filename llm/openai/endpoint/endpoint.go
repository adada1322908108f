// Package endpoint says where the OpenAI provider sends its requests and with which key.
// It holds no SDK: ouro checks an openai:NAME model's configuration here before it builds
// the provider (llm/openai), which uses the same rules.
package endpoint

import (
	"errors"
	"fmt"
	"net/url"
	"os"
)

// Endpoint is a checked OpenAI connection.
type Endpoint struct {
	APIKey  string `json:"api_key,omitempty"`
	BaseURL string `json:"base_url,omitempty"` // empty: the OpenAI API
	// Official is true for the OpenAI API itself (no base URL, or api.openai.com), which
	// takes max_completion_tokens; compatible servers get max_tokens.
	Official bool `json:"official"`
}

// Resolve checks a key and base URL; an empty one falls back to OPENAI_API_KEY or
// OPENAI_BASE_URL. A key is required only by the OpenAI API itself: local servers
// usually need none.
func Resolve(key, base string) (Endpoint, error) {
	if key == "" {
		key = os.Getenv("OPENAI_API_KEY")
	}
	if base == "" {
		base = os.Getenv("OPENAI_BASE_URL")
	}
	if key == "" && base == "" {
		return Endpoint{}, errors.New("openai: no API key: set OPENAI_API_KEY, or set OPENAI_BASE_URL to use a local OpenAI-compatible server (Ollama, vLLM, llama.cpp) that needs none")
	}
	e := Endpoint{APIKey: key, BaseURL: base, Official: true}
	if base != "" {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Endpoint{}, fmt.Errorf("openai: base URL %q is not an http(s) URL such as http://localhost:11434/v1", base)
		}
		e.Official = u.Hostname() == "api.openai.com"
	}
	return e, nil
}
