package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/ouroagent/ouro/team/registry"
	"github.com/ouroagent/ouro/team/registry/registrytest"
	"github.com/ouroagent/ouro/team/registry/sqlitestore"
)

func TestContract(t *testing.T) {
	registrytest.Run(t, func(t *testing.T) registry.Store {
		s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "state.db"), 0)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
