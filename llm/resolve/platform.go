package resolve

import (
	"context"

	"github.com/ouroagent/ouro/internal/envtune"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/anthropic/cloud"
	"github.com/ouroagent/ouro/llm/keyhelper"
)

// platformProvider serves a Claude model from Amazon Bedrock or Google Vertex AI
// (CLAUDE_CODE_USE_BEDROCK, CLAUDE_CODE_USE_VERTEX): the session keeps the Claude name
// (its cost and window are the table's); the provider sends the platform's id for it.
func platformProvider(model, fallback string, env func(string) string, keys *keyhelper.Helper) (llm.Provider, string, error) {
	plat, err := cloud.FromEnv(context.Background(), env, awsCommands(keys))
	if err != nil {
		return nil, "", err
	}
	first, idle, err := llm.StreamIdleBounds()
	if err != nil {
		return nil, "", err
	}
	p, err := anthropic.New(anthropic.Config{FallbackModel: fallback, Platform: plat.Options, PlatformModel: plat.Model,
		StreamFirst: first, StreamIdle: idle, NoPromptCache: envtune.Read(env).NoPromptCache})
	if err != nil {
		return nil, "", err
	}
	return p, model, nil
}
