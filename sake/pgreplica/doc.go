// Package pgreplica makes a sake.Server one of several replicas on one
// PostgreSQL database, behind a plain load balancer without sticky
// sessions:
//
//	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
//	replica, err := pgreplica.Open(ctx, pool)
//	srv, err := sake.New(&App{}, replica.Options()...)
//	defer replica.Close(ctx) // after srv.Shutdown
//
// The replicas then share the signing secret of cursors and request
// states (drawn by the first replica and kept in the table sake_secrets:
// whoever can read the database can forge them), tasks (sake/tasks/pgstore:
// any replica serves any task request, a cancellation or an answer reaches
// the replica running the work, the tasks of a stopped replica fail), and
// broadcasts (sake/pgbroker: list changes and resource updates reach every
// replica's listen streams and legacy sessions).
//
// StoreOptions tunes the task store: with pgstore.DeadAfter and
// pgstore.Heartbeat a replica's unfinished tasks are failed sooner after
// it stops (by default a replica beats every 10 s and is taken as stopped
// after a minute without a beat).
//
// A tools/call that starts no task does not touch the database, nor does
// any message of a legacy session this replica knows: the session's
// record is kept in memory once read (SessionCache bounds how many), and
// each write of a record (a log level, subscriptions, the end of the
// session) announces itself over LISTEN/NOTIFY in the statement that makes
// it, so every replica replaces or drops its copy as the notice arrives.
// A deleted session stays deleted: a change of it saved after its DELETE
// committed (by a request that read it before) is dropped, not stored as
// a new session.
// A change made on one replica therefore holds on another once its notice
// has been delivered there. A change a client asked for (a log level,
// subscriptions) and the end of a session (its DELETE, its idle expiry)
// go further: they are answered only once every other replica whose
// LISTEN connection lives has confirmed that it took the change in (its
// copy replaced or dropped), so no replica serves the session as it was
// after the client has the answer. A replica registers its LISTEN
// connection (table sake_session_listeners) before it trusts its memory;
// one whose connection died is not waited for, and one that does not
// confirm within ConfirmWait (5 s by default) is logged and the change
// answered anyway. The sessions' last use is written in one batch
// every 5 s. The task store, the broker and the session store of a
// replica LISTEN on one connection they share, so a NOTIFY wakes one
// PostgreSQL backend per replica. A replica that loses its LISTEN
// connection drops every record it keeps, and reads them again until it
// listens again; a connection that silently stops delivering counts as
// lost once it leaves a round trip unanswered (one is asked after each
// second without a notice, and given 2 s).
//
// The record also names the replica holding the session's own stream (its
// GET; see backend.SessionStreamStore), so a message for that stream is
// relayed only while a replica holds it, as far as the sender has heard.
package pgreplica
