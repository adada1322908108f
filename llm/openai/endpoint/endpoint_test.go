package endpoint

import (
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	if _, err := Resolve("", ""); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Errorf("nothing set: %v", err)
	}
	for _, bad := range []string{"localhost:11434/v1", "ftp://x/v1", "http://", "::"} {
		if _, err := Resolve("", bad); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	for _, c := range []struct {
		key, base string
		want      Endpoint
	}{
		{"sk", "", Endpoint{APIKey: "sk", Official: true}},
		{"sk", "https://api.openai.com/v1", Endpoint{APIKey: "sk", BaseURL: "https://api.openai.com/v1", Official: true}},
		{"", "http://localhost:11434/v1", Endpoint{BaseURL: "http://localhost:11434/v1"}},
		// A host that only starts like OpenAI's is someone else's server.
		{"sk", "https://api.openai.com.evil.example/v1", Endpoint{APIKey: "sk", BaseURL: "https://api.openai.com.evil.example/v1"}},
	} {
		if got, err := Resolve(c.key, c.base); err != nil || got != c.want {
			t.Errorf("%q %q: %+v %v", c.key, c.base, got, err)
		}
	}
	// The environment fills what the caller left empty.
	t.Setenv("OPENAI_API_KEY", "from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
	if got, err := Resolve("", ""); err != nil || got.APIKey != "from-env" || got.BaseURL != "http://127.0.0.1:8000/v1" || got.Official {
		t.Errorf("from the environment: %+v %v", got, err)
	}
	if got, _ := Resolve("explicit", ""); got.APIKey != "explicit" {
		t.Errorf("an explicit key lost to the environment: %+v", got)
	}
}
