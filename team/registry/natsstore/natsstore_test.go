package natsstore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/ouroagent/ouro/internal/natstest"
	"github.com/ouroagent/ouro/team/registry"
	"github.com/ouroagent/ouro/team/registry/natsstore"
	"github.com/ouroagent/ouro/team/registry/registrytest"
)

// contract runs the registry contract on url, each of its tests in a namespace of its own.
func contract(t *testing.T, url string) {
	var n atomic.Int64
	registrytest.Run(t, func(t *testing.T) registry.Store {
		s, err := natsstore.Open(context.Background(), fmt.Sprintf("%s?ns=r%d", url, n.Add(1)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestContractSingleServer(t *testing.T) { contract(t, natstest.Server(t).URL()) }

func TestContractCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("3-node cluster")
	}
	contract(t, natstest.Start3(t).URL())
}
