package anthropic

import (
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// newOnPlatform is New for a cloud platform (Config.Platform): its options set where
// requests go and sign them; no key or base URL of the Anthropic API applies.
func newOnPlatform(cfg Config) (*Provider, error) {
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("anthropic: max tokens must not be negative, got %d", cfg.MaxTokens)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTPClient()
	}
	cfg.APIKey, cfg.AuthToken, cfg.BaseURL, cfg.Keys = "", "", "", nil
	opts := append([]option.RequestOption{
		option.WithEnvironmentProduction(),
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	}, cfg.Platform...)
	return &Provider{cfg: cfg, messages: sdk.NewMessageService(opts...)}, nil
}
