// Package tasks runs the tasks of a sake server: tool calls that outlive
// their request, which the client polls (tasks/get), answers (tasks/update),
// cancels (tasks/cancel), lists (tasks/list) and waits for (tasks/result),
// in either protocol era.
//
//	m := tasks.New()
//	defer m.Shutdown(context.Background())
//	srv, err := sake.New(MyServer{}, sake.Tasks(m))
//
// # Model
//
// Manager implements backend.TaskManager. Create stores a task in the working
// status and hands back a backend.TaskControl; the dispatcher runs the tool in
// its own goroutine, and the tool reports through the control: Progress
// sets the status message, NeedInput parks the task in input_required
// until Answer has delivered an answer for every request, and Complete or
// Fail end it. Cancel ends it too, at once (the task is cancelled before
// Cancel returns) and cooperatively (the control's context ends; the work
// should stop). Once a task is terminal (completed, failed or cancelled)
// the control's further reports are ignored. A status message that is not
// valid UTF-8 or holds a NUL (PostgreSQL's text holds neither) is refused
// before any store sees it: Progress, and so sake.Context.Progress in a
// tool running as a task, returns a -32602 error and the message stays as
// it was. A failure's message is mended instead (each such byte becomes
// U+FFFD), since the task must end.
//
// A task keeps one of the manager's running slots until it is terminal: at
// most MaxRunning (default 64) in all and MaxRunningPerOwner (default 16)
// per owner, so one caller cannot take them all. Create beyond them returns
// an error matching ErrTooMany or ErrTooManyForOwner that is also a
// *sake.Error with CodeServerBusy (-32000): a tool call gets it as its
// JSON-RPC error, saying to wait for or cancel (tasks/cancel) a task and
// call again.
//
// Every task has a TTL counted from its creation (DefaultTTL when the
// caller asks for none, at most MaxTTL). An expired task is not found from
// the moment it expires; a janitor goroutine, started by the first Create,
// deletes expired tasks every minute (Manager.Sweep) and ends the contexts
// of those still running. Shutdown stops it, ends every running task's
// context, and fails the tasks whose work does not finish in time.
//
// # Ownership
//
// Each task belongs to the owner it was created for (sake.Identity.Owner:
// "" for anonymous callers). Get, Answer, Cancel and Wait with any other
// owner return backend.ErrTaskNotFound, as for an unknown or expired id, so a
// caller cannot learn that someone else's task exists; List shows only the
// caller's tasks. Task ids are random version 4 UUIDs.
//
// # Stores
//
// A Store persists tasks; NewMemoryStore is the default. A store's methods
// are safe for concurrent use and copy tasks in and out, so that no caller
// can reach stored state; Update is an atomic read-modify-write (the
// manager's state transitions, such as "cancel unless terminal" or "take
// these answers if outstanding", are functions run inside it); List is
// newest first and paged by the id of the previous page's last task;
// Expired finds what the janitor deletes. The package's tests check the
// contract with a helper a new store can reuse.
//
// # Store outages
//
// A task whose work ends while the store refuses writes (a database that
// cannot be reached) is not left working: the manager keeps its final
// state (at most MaxUnstored, default 1000; beyond that a final state is
// lost and logged), answers Get, Wait and Cancel for it from that state
// (List shows it too), and stores it again with a backoff (RetryBackoff: 100 ms,
// doubling to 5 s), at once when the store takes another write or the
// change feed reconnects, and last in Shutdown. A task cancelled or failed
// through another replica meanwhile stays as stored; a final state the
// store refuses five times while it answers reads becomes a -32603 failure
// ("the task's work ended but the server could not store its outcome").
// Other replicas answer
// what the store holds: while they cannot reach it either, tasks/get is a
// -32603 error saying the task status is unavailable and to retry; when
// only this replica is cut off, they show the task working until this
// replica stores its final state, or until they take this replica as
// stopped and fail the task (sake/tasks/pgstore's DeadAfter). Unstored
// counts the final states kept.
//
// # Replicas
//
// A shared store lets several replicas of a server answer tasks/get,
// tasks/list and tasks/cancel for the same tasks, but some of the runtime
// is in-process: a task's work runs in the replica that created it, which
// alone holds its context, its running slot and the answers delivered to
// NeedInput; Wait and Subscribe see only changes made through their own
// Manager. Across replicas, a Cancel or Answer served by another replica
// reaches the store (the work notices a cancellation at its next report)
// but not the work's context or NeedInput, and Wait and Subscribe miss
// the change. A shared store therefore needs change notifications between
// replicas (for example PostgreSQL LISTEN/NOTIFY, delivering each change
// to every replica's waiters, subscribers and running controls) before it
// can serve all of the protocol; until then, route a task's requests to
// the replica that created it.
package tasks
