package anthropic

import (
	"context"
	"errors"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/ouroagent/ouro/llm"
)

// key is the key for the next attempt: the source's current one, or, after a 401 on
// refused (the key of the attempt before), a new one.
func (p *Provider) key(ctx context.Context, refused string) (string, error) {
	var key string
	var err error
	if refused == "" {
		key, err = p.cfg.Keys.Key(ctx)
	} else {
		key, err = p.cfg.Keys.Refresh(ctx, refused)
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &llm.Error{Kind: llm.ErrKindAuth, Message: err.Error(), Err: err}
	}
	if key == "" {
		return "", &llm.Error{Kind: llm.ErrKindAuth, Message: "the API key source gave no key", Err: errors.New("empty key")}
	}
	return key, nil
}

// keyHeaders sends key both ways Claude Code sends an apiKeyHelper's: as X-Api-Key and as
// Authorization: Bearer (a gateway may read either).
func keyHeaders(key string) []option.RequestOption {
	return []option.RequestOption{option.WithHeader("X-Api-Key", key), option.WithHeader("Authorization", "Bearer "+key)}
}
