package tasks_test

import (
	"testing"

	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/tasks/taskstest"
)

func TestMemoryStore(t *testing.T) {
	t.Parallel()
	taskstest.StoreContract(t, func(*testing.T) tasks.Store { return tasks.NewMemoryStore() })
}
