package engine

import "github.com/ouroagent/ouro/workflow"

// The names of a run, from package workflow.
type (
	Runner       = workflow.Runner
	RunnerFunc   = workflow.RunnerFunc
	AgentOptions = workflow.AgentOptions
	Script       = workflow.Script
	Options      = workflow.Options
	Event        = workflow.Event
	Result       = workflow.Result
	Meta         = workflow.Meta
	Phase        = workflow.Phase
	Store        = workflow.Store
	CallRecord   = workflow.CallRecord
	RunRecord    = workflow.RunRecord
)

const (
	MaxAgents         = workflow.MaxAgents
	MaxItems          = workflow.MaxItems
	MaxScriptBytes    = workflow.MaxScriptBytes
	StatusRunning     = workflow.StatusRunning
	StatusCompleted   = workflow.StatusCompleted
	StatusFailed      = workflow.StatusFailed
	StatusInterrupted = workflow.StatusInterrupted
	StatusBudget      = workflow.StatusBudget
	CallRunning       = workflow.CallRunning
	CallDone          = workflow.CallDone
	CallFailed        = workflow.CallFailed
	CallInterrupted   = workflow.CallInterrupted
)

var (
	NewMemStore        = workflow.NewMemStore
	NewRunID           = workflow.NewRunID
	ValidRunID         = workflow.ValidRunID
	DefaultConcurrency = workflow.DefaultConcurrency
)
