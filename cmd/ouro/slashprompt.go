package main

import (
	"context"
	"strings"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm"
)

// slashPrompt expands a headless prompt "/<name> args" naming a skill or command (as
// Claude Code's -p and SDK do for custom commands) into its text with $ARGUMENTS
// substituted, as the REPL does. A prompt whose first word names no skill is sent
// unchanged ("/tmp/x is empty" is a sentence); a skill the user may not invoke
// (user-invocable: false) is an error.
func slashPrompt(ctx context.Context, sess *harness.Session, prompt string) (string, error) {
	t := strings.TrimSpace(prompt)
	if !strings.HasPrefix(t, "/") {
		return prompt, nil
	}
	first, args, _ := strings.Cut(t[1:], " ")
	first, rest, _ := strings.Cut(first, "\n")
	if rest != "" {
		args = strings.TrimSpace(rest + " " + args)
	}
	if _, ok := sess.Skills.Get(first); !ok || first == "" {
		return prompt, nil
	}
	return sess.InvokeSkill(ctx, first, strings.TrimSpace(args))
}

// slashBlocks is slashPrompt for a stream-json prompt made of one text block.
func slashBlocks(ctx context.Context, sess *harness.Session, blocks []llm.Block) ([]llm.Block, error) {
	if len(blocks) != 1 || blocks[0].Type != llm.BlockText {
		return blocks, nil
	}
	text, err := slashPrompt(ctx, sess, blocks[0].Text)
	if err != nil {
		return nil, err
	}
	b := blocks[0]
	b.Text = text
	return []llm.Block{b}, nil
}
