package workflow

import "testing"

func TestAskedForTheWord(t *testing.T) {
	for prompt, want := range map[string]bool{
		"run a workflow that reviews this":     true,
		"Workflow: fan out the review":         true,
		"use the review WORKFLOWS":             true,
		"start the workflow's second phase":    true,
		"(workflow)":                           true,
		"fix the tests":                        false,
		"the workflowish thing":                false,
		"see myworkflow.js":                    false,
		"work flow":                            false,
		"":                                     false,
		"workflow_id is a field, not the word": false,
	} {
		if got := AskedFor(prompt); got != want {
			t.Errorf("AskedFor(%q) = %v, want %v", prompt, got, want)
		}
	}
}
