package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// Exports is a server whose export runs as a task: it reports progress,
// asks for confirmation half-way when the export is large, and stops when
// cancelled.
type Exports struct {
	// Step is how long one record takes; tests set it to zero.
	Step time.Duration
	// Gate, when not nil, is received from before each record, so tests
	// decide when the export advances.
	Gate chan struct{}
}

// Declare makes export a task.
func (e *Exports) Declare(d *sake.Declarations) {
	d.Tool("Export").
		Description("Exports the records of a table as CSV. Runs as a task: poll it, answer its question, or cancel it.").
		Task(sake.TaskOptional).TaskTiming(time.Hour, 500*time.Millisecond)
}

// ExportArgs are the arguments of export.
type ExportArgs struct {
	Table   string `json:"table" jsonschema:"enum=customers,enum=orders,description=The table to export"`
	Records int    `json:"records" jsonschema:"minimum=1,maximum=100000,description=How many records to export"`
}

// Continue is the question asked half-way through a large export.
type Continue struct {
	Proceed bool `json:"proceed" jsonschema:"description=Export the second half too"`
}

// largeExport is the size from which the export asks before going on.
const largeExport = 100

// Export writes the records, one step each.
func (e *Exports) Export(ctx *sake.Context, a ExportArgs) (string, error) {
	var out strings.Builder
	out.WriteString("id,table\n")
	half := a.Records / 2
	for i := 1; i <= a.Records; i++ {
		if i == half+1 && a.Records >= largeExport {
			var c Continue
			action, err := ctx.Elicit("continue", fmt.Sprintf("%d of %d records are exported. Export the rest?", half, a.Records), &c)
			if err != nil {
				return "", err // the task waits for the answer, then runs again
			}
			if action != sake.Accept || !c.Proceed {
				return fmt.Sprintf("Stopped after %d of %d records.\n%s", half, a.Records, out.String()), nil
			}
		}
		if err := e.step(ctx); err != nil {
			return "", err
		}
		fmt.Fprintf(&out, "%d,%s\n", i, a.Table)
		ctx.Progress(float64(i), float64(a.Records), fmt.Sprintf("%d of %d records", i, a.Records))
	}
	return fmt.Sprintf("Exported %d records.\n%s", a.Records, out.String()), nil
}

// step waits for one record's work, or for cancellation.
func (e *Exports) step(ctx *sake.Context) error {
	if e.Gate != nil {
		select {
		case <-e.Gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if e.Step <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(e.Step)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
