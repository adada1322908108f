package llm_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

func TestLookupModel(t *testing.T) {
	tests := []struct {
		model     string
		name      string // the Name reported: the model asked for, without a provider prefix
		window    int
		maxOut    int
		in, out   float64
		cacheW    float64
		cacheR    float64
		wantKnown bool
	}{
		// Longest prefix wins: claude-opus-4-1 over claude-opus-4-, gpt-4o-mini over gpt-4o ...
		{"claude-opus-4-1-20250805", "claude-opus-4-1-20250805", 200_000, 32_000, 15, 75, 18.75, 1.5, true},
		{"claude-opus-4-0", "claude-opus-4-0", 200_000, 32_000, 15, 75, 18.75, 1.5, true},
		{"claude-opus-4-5", "claude-opus-4-5", 200_000, 64_000, 5, 25, 6.25, 0.5, true},
		{"claude-opus-4-6-20260101", "claude-opus-4-6-20260101", 200_000, 64_000, 5, 25, 6.25, 0.5, true},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929", 200_000, 64_000, 3, 15, 3.75, 0.3, true},
		{"claude-haiku-4-5", "claude-haiku-4-5", 200_000, 64_000, 1, 5, 1.25, 0.1, true},
		{"claude-3-5-haiku-latest", "claude-3-5-haiku-latest", 200_000, 8_192, 0.8, 4, 1, 0.08, true},
		{"gpt-4o-mini-2024-07-18", "gpt-4o-mini-2024-07-18", 128_000, 16_384, 0.15, 0.6, 0, 0.075, true},
		{"gpt-4o-2024-08-06", "gpt-4o-2024-08-06", 128_000, 16_384, 2.5, 10, 0, 1.25, true},
		{"gpt-4.1-mini", "gpt-4.1-mini", 1_047_576, 32_768, 0.4, 1.6, 0, 0.1, true},
		{"gpt-4.1", "gpt-4.1", 1_047_576, 32_768, 2, 8, 0, 0.5, true},
		{"gpt-5-mini", "gpt-5-mini", 400_000, 128_000, 0.25, 2, 0, 0.025, true},
		{"gpt-5", "gpt-5", 400_000, 128_000, 1.25, 10, 0, 0.125, true},
		{"o4-mini", "o4-mini", 200_000, 100_000, 1.1, 4.4, 0, 0.275, true},
		// A "provider:" prefix is ignored for the lookup and dropped from Name.
		{"anthropic:claude-sonnet-4-5", "claude-sonnet-4-5", 200_000, 64_000, 3, 15, 3.75, 0.3, true},
		{"openai:gpt-4o-mini", "gpt-4o-mini", 128_000, 16_384, 0.15, 0.6, 0, 0.075, true},
		// Other colons belong to the name (Bedrock-style IDs).
		{"claude-sonnet-4-5-v1:0", "claude-sonnet-4-5-v1:0", 200_000, 64_000, 3, 15, 3.75, 0.3, true},
		// Unknown models: defaults, no price, Known=false.
		{"llama-3.1-70b", "llama-3.1-70b", 128_000, 8_192, 0, 0, 0, 0, false},
		{"openai:my-local-model", "my-local-model", 128_000, 8_192, 0, 0, 0, 0, false},
		{"", "", 128_000, 8_192, 0, 0, 0, 0, false},
		// A family name inside another name is not a prefix.
		{"my-claude-sonnet-4", "my-claude-sonnet-4", 128_000, 8_192, 0, 0, 0, 0, false},
		// A name shorter than every entry it starts like.
		{"claude-opus", "claude-opus", 128_000, 8_192, 0, 0, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got := llm.LookupModel(tt.model)
			want := llm.ModelInfo{
				Name: tt.name, ContextWindow: tt.window, MaxOutput: tt.maxOut,
				InputPerMTok: tt.in, OutputPerMTok: tt.out, CacheWrite: tt.cacheW, CacheRead: tt.cacheR,
				Known: tt.wantKnown,
			}
			if got != want {
				t.Errorf("LookupModel(%q) =\n  %+v\nwant\n  %+v", tt.model, got, want)
			}
		})
	}
}

func TestDefaultModelIsKnown(t *testing.T) {
	if info := llm.LookupModel(llm.DefaultModel); !info.Known || info.InputPerMTok == 0 {
		t.Errorf("LookupModel(DefaultModel %q) = %+v, want a known, priced model", llm.DefaultModel, info)
	}
}

// Sanity of the table as seen through LookupModel: every known family fits its output in
// its window and reads from the cache for less than fresh input.
func TestKnownModelsAreConsistent(t *testing.T) {
	for _, m := range []string{
		"claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-5", "claude-opus-5", "claude-sonnet-4", "claude-sonnet-5",
		"claude-haiku-4", "claude-haiku-5", "claude-3-5-haiku", "claude-3-7-sonnet",
		"gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1", "gpt-5-mini", "gpt-5", "o3", "o4-mini",
	} {
		info := llm.LookupModel(m)
		if !info.Known {
			t.Errorf("%s: not known", m)
			continue
		}
		if info.MaxOutput <= 0 || info.MaxOutput > info.ContextWindow {
			t.Errorf("%s: MaxOutput %d does not fit ContextWindow %d", m, info.MaxOutput, info.ContextWindow)
		}
		if info.InputPerMTok <= 0 || info.OutputPerMTok < info.InputPerMTok || info.CacheRead >= info.InputPerMTok {
			t.Errorf("%s: implausible prices %+v", m, info)
		}
	}
}

func TestCost(t *testing.T) {
	sonnet := llm.LookupModel("claude-sonnet-4-5")
	tests := []struct {
		name string
		info llm.ModelInfo
		u    llm.Usage
		want float64
	}{
		{"zero usage", sonnet, llm.Usage{}, 0},
		{"a million input tokens", sonnet, llm.Usage{InputTokens: 1_000_000}, 3},
		{"a million output tokens", sonnet, llm.Usage{OutputTokens: 1_000_000}, 15},
		{"a million cache writes", sonnet, llm.Usage{CacheCreationInputTokens: 1_000_000}, 3.75},
		{"a million cache reads", sonnet, llm.Usage{CacheReadInputTokens: 1_000_000}, 0.3},
		{"every kind", sonnet, llm.Usage{InputTokens: 1000, OutputTokens: 2000, CacheCreationInputTokens: 3000, CacheReadInputTokens: 4000},
			(1000*3 + 2000*15 + 3000*3.75 + 4000*0.3) / 1e6},
		{"unknown model costs nothing", llm.LookupModel("mystery-1"), llm.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 0},
		{"hand-made info", llm.ModelInfo{InputPerMTok: 2, OutputPerMTok: 4, CacheWrite: 8, CacheRead: 16},
			llm.Usage{InputTokens: 1, OutputTokens: 1, CacheCreationInputTokens: 1, CacheReadInputTokens: 1}, 30e-6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.info.Cost(tt.u); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Cost(%+v) = %v, want %v", tt.u, got, tt.want)
			}
		})
	}
}

// Every model offered by name is in the table (its window and price are known), Claude
// ones plain and the others as openai:NAME; every alias stands for a Claude model.
func TestListedModelsAreKnown(t *testing.T) {
	for _, m := range llm.ListedModels() {
		if !llm.LookupModel(m).Known {
			t.Errorf("%s is listed but not in the model table", m)
		}
		if claude := llm.IsClaude(m); claude == strings.HasPrefix(m, "openai:") {
			t.Errorf("%s: IsClaude = %v", m, claude)
		}
	}
	for _, a := range llm.Aliases() {
		if !llm.IsClaude(a) {
			t.Errorf("alias %s does not stand for a Claude model", a)
		}
	}
	for _, m := range []string{"gpt-4o", "o3", "llama3", "openai:gpt-5"} {
		if llm.IsClaude(m) {
			t.Errorf("IsClaude(%s) = true", m)
		}
	}
}
