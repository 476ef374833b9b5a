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
// The tables (sake_tasks, sake_task_answers, sake_task_replicas,
// sake_task_listeners, and sake_migrations shared with Sake's other
// stores) are created by versioned migrations that New runs; they are
// idempotent and safe from several replicas starting at once. They live
// in the schema the pool's search_path names.
//
// # Statements and memory
//
// A listening Store keeps in memory the tasks it wrote and those whose
// changes the feed delivered (CacheBytes bounds it, 16 MiB by default),
// each at its version in the table (a write updates it at once). Every
// write announces itself, with the task when it fits in a NOTIFY
// payload, in the statement that makes it. A change a client asked for (a
// cancellation, answers) returns once its own notice has come back and
// every other replica listening has confirmed it took the change in, so
// the client finds it wherever its next request goes (a replica registers
// its LISTEN connection in sake_task_listeners before it trusts its
// memory; one whose connection died is not waited for, one that does not
// confirm within 5 s is logged and the change answered anyway); a creation and what the task's work
// reports (tasks.FromWork: its progress, its questions, its end) return
// once written, and the other replicas see them as their notice arrives (a
// replica that has not heard of a new task reads it from the table). So a
// task's life costs one statement to create it and one per change (its
// end included) on the replica that runs it; tasks/get, tasks/result and
// the waits are answered from memory by the replica that runs the task or
// has heard of its last change, and read the table only when it knows
// nothing newer. A change that memory does not know of yet (made on
// another replica, its notice still on its way) makes the conditional
// write fail and is redone under the row's lock. Creations and
// conditional writes that arrive while others are on their way to the
// database go together, in one round trip and one transaction (one
// commit, one wake-up of each listening replica for all their notices),
// each with its own outcome: a statement the database refuses rolls its
// batch back, and each write of that batch is then made alone, so that it
// fails alone. Reads follow the feed: a change made on another replica is
// seen once its notice has been delivered. The store listens on the connection its process shares with
// the other listeners on the same database, user and search_path (Sake's
// session store and broker among them), one per replica.
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
// When the LISTEN connection drops, the store forgets what it keeps in
// memory at once, listens again with a bounded backoff and then has the
// manager re-read every task it runs or awaits,
// logging that it does so, since changes announced meanwhile were missed.
// The manager also stores then the final states of tasks whose work ended
// while the database was unreachable, which it kept meanwhile (see
// sake/tasks, "Store outages").
package pgstore
