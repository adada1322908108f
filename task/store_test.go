package task_test

import (
	"testing"

	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/task/storetest"
)

func TestMemStoreContract(t *testing.T) {
	storetest.Run(t, func(*testing.T) task.Store { return task.NewMemStore() })
}
