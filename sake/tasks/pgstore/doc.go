// Package pgstore keeps tasks in PostgreSQL, so that several replicas of a
// server behind a plain load balancer serve the same tasks: any replica
// answers tasks/get, tasks/result, tasks/update and tasks/cancel for a task
// running on any other.
//
// A Store is both the tasks.Store and the tasks.Feed of a Manager: changes
// travel between replicas with PostgreSQL LISTEN/NOTIFY, so a cancellation
// served by one replica ends the work on the replica that runs it, answers
// accepted by one reach the work's NeedInput on another, and Waits and
// notifications/tasks subscribers wake everywhere:
//
//	pool, _ := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
//	store, err := pgstore.New(ctx, pool, pgstore.NewReplicaID())
//	if err != nil { ... }
//	mgr := tasks.New(tasks.WithStore(store)) // the store is also the feed
//
// The tables (sake_tasks, sake_task_answers, sake_task_replicas, and
// sake_migrations shared with Sake's other stores) are created by
// versioned migrations that New runs; they are idempotent and safe from
// several replicas starting at once. They live in the schema the pool's
// search_path names.
//
// # Replicas that stop
//
// Each listening replica records a heartbeat every Heartbeat (10 s by
// default). A replica that has not done so for DeadAfter (one minute) is
// taken as stopped: its unfinished tasks become failed with a -32603 error
// "the server replica running this task stopped", their waiters wake, and
// no task is left working forever. A replica judges the others only once
// it has itself been beating without a gap for DeadAfter, so that the
// first replica back from a database outage (or a replica just started)
// does not fail the tasks of replicas that missed their beats in the same
// outage and are on their way back. Expired tasks are deleted by every
// replica's janitor; deleting one twice is harmless.
//
// # Lost connections
//
// When the LISTEN connection drops, the store listens again with a bounded
// backoff and then has the manager re-read every task it runs or awaits,
// logging that it does so, since changes announced meanwhile were missed.
// The manager also stores then the final states of tasks whose work ended
// while the database was unreachable, which it kept meanwhile (see
// sake/tasks, "Store outages").
package pgstore
