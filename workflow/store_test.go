package workflow_test

import (
	"testing"

	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workflow/storetest"
)

func TestMemStoreContract(t *testing.T) {
	storetest.Run(t, func(*testing.T) workflow.Store { return workflow.NewMemStore() })
}
