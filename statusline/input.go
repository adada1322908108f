package statusline

import (
	"strings"
	"unicode"
)

// Input is what the command reads on stdin, in Claude Code's shape and names (its
// statusline documentation): a script written for Claude Code reads the same fields.
// ouro fills what it knows; fields it does not have (rate limits, vim mode, a pull
// request) are left out, as Claude Code leaves them out when it does not have them.
type Input struct {
	HookEventName  string        `json:"hook_event_name"` // always "Status"
	SessionID      string        `json:"session_id"`
	TranscriptPath string        `json:"transcript_path"`
	CWD            string        `json:"cwd"`
	Model          Model         `json:"model"`
	Workspace      Workspace     `json:"workspace"`
	Version        string        `json:"version"`
	OutputStyle    OutputStyle   `json:"output_style"`
	Cost           Cost          `json:"cost"`
	ContextWindow  ContextWindow `json:"context_window"`
	// Exceeds200k says the last request's input passed 200,000 tokens.
	Exceeds200k bool `json:"exceeds_200k_tokens"`
}

// Model names the session's model.
type Model struct {
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
}

// Workspace is where the session works.
type Workspace struct {
	CurrentDir string   `json:"current_dir"`
	ProjectDir string   `json:"project_dir"`
	AddedDirs  []string `json:"added_dirs"`
}

// OutputStyle is the session's output style.
type OutputStyle struct {
	Name string `json:"name"`
}

// Cost is what the session has spent so far.
type Cost struct {
	TotalCostUSD       float64 `json:"total_cost_usd"`
	TotalDurationMS    int64   `json:"total_duration_ms"`
	TotalAPIDurationMS int64   `json:"total_api_duration_ms"`
	TotalLinesAdded    int     `json:"total_lines_added"`
	TotalLinesRemoved  int     `json:"total_lines_removed"`
}

// ContextWindow is how full the model's context is. CurrentUsage and the percentages
// are null until the first answer came.
type ContextWindow struct {
	TotalInputTokens    int      `json:"total_input_tokens"`
	TotalOutputTokens   int      `json:"total_output_tokens"`
	ContextWindowSize   int      `json:"context_window_size"`
	CurrentUsage        *Usage   `json:"current_usage"`
	UsedPercentage      *float64 `json:"used_percentage"`
	RemainingPercentage *float64 `json:"remaining_percentage"`
}

// Usage is the last answer's token counts.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// SetUsage records the last answer's usage in the context window: the percentages count
// its input (cached or not), as Claude Code's do.
func (c *ContextWindow) SetUsage(u Usage) {
	c.CurrentUsage = &u
	if c.ContextWindowSize <= 0 {
		return
	}
	in := u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
	used := min(float64(in)*100/float64(c.ContextWindowSize), 100)
	used = float64(int(used*10+0.5)) / 10
	rest := 100 - used
	c.UsedPercentage, c.RemainingPercentage = &used, &rest
}

// DisplayName is a model's name for people: "claude-sonnet-4-5-20250929" reads
// "Sonnet 4.5"; a name of another shape is kept.
func DisplayName(id string) string {
	rest, ok := strings.CutPrefix(id, "claude-")
	if !ok {
		return id
	}
	var family string
	var version []string
	for _, p := range strings.Split(rest, "-") {
		switch {
		case p == "":
		case len(p) >= 8 && isDigits(p): // a date
		case isDigits(p):
			version = append(version, p)
		case family == "":
			family = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	if family == "" {
		return id
	}
	if len(version) == 0 {
		return family
	}
	return family + " " + strings.Join(version, ".")
}

func isDigits(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}
