package storetest

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/workflow"
)

// FiveSteps is a 5-step workflow; each step's agent leaves a side effect (a line in a
// file), so a test can count the steps a resumed run redid.
const FiveSteps = `export const meta = { name: 'five', description: 'five steps' };
let acc = [];
for (let i = 1; i <= 5; i++) {
  phase('step ' + i);
  acc.push(await agent('step ' + i + ' after ' + acc.length, {label: 'step' + i}));
}
return acc;`

// SideEffects is a runner whose every finished step appends a line to file; the step
// numbered block (0: none) starts, says so in file+".started", and never finishes.
func SideEffects(file string, block int) workflow.Runner {
	return workflow.RunnerFunc(func(ctx context.Context, prompt string, _ workflow.AgentOptions) (string, llm.Usage, error) {
		if block > 0 && strings.HasPrefix(prompt, fmt.Sprintf("step %d ", block)) {
			_ = os.WriteFile(file+".started", nil, 0o600)
			<-ctx.Done()
			return "", llm.Usage{}, ctx.Err()
		}
		f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return "", llm.Usage{}, err
		}
		fmt.Fprintln(f, prompt)
		f.Close()
		return "done " + prompt, llm.Usage{OutputTokens: 10}, nil
	})
}
