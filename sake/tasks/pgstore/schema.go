package pgstore

import "github.com/sakemcp/sake-go/sake/internal/pglisten"

// migrations are the schema steps of the task tables, applied in order
// once per database (see sake/internal/pgmigrate). Never edit a step that
// has shipped: add one.
var migrations = []string{
	`CREATE TABLE sake_tasks (
		id              text PRIMARY KEY,
		owner           text NOT NULL,
		seq             bigserial NOT NULL,
		tool            text NOT NULL,
		status          text NOT NULL,
		status_message  text NOT NULL,
		created_at      timestamptz NOT NULL,
		last_updated_at timestamptz NOT NULL,
		ttl_ms          bigint NOT NULL,
		poll_ms         bigint NOT NULL,
		expires_at      timestamptz,
		input_requests  bytea,
		result          bytea,
		result_is_error boolean NOT NULL,
		error           bytea,
		runner          text NOT NULL DEFAULT ''
	);
	CREATE INDEX sake_tasks_by_owner ON sake_tasks (owner, created_at DESC, seq DESC);
	CREATE INDEX sake_tasks_by_expiry ON sake_tasks (expires_at) WHERE expires_at IS NOT NULL;
	CREATE TABLE sake_task_answers (
		seq     bigserial PRIMARY KEY,
		task_id text NOT NULL REFERENCES sake_tasks (id) ON DELETE CASCADE,
		answers bytea NOT NULL
	);
	CREATE INDEX sake_task_answers_by_task ON sake_task_answers (task_id, seq);
	CREATE TABLE sake_task_replicas (
		id        text PRIMARY KEY,
		seen_at   timestamptz NOT NULL
	);`,
	// Since when a replica has beaten without a gap: it judges the
	// others only once it has watched for DeadAfter itself.
	`ALTER TABLE sake_task_replicas ADD COLUMN beating_since timestamptz NOT NULL DEFAULT now();`,
	// Each write of a task adds one to its version: a replica that knows
	// the latest version writes on condition that it is still that one,
	// and the feed says which version each notice announces.
	`ALTER TABLE sake_tasks ADD COLUMN version bigint NOT NULL DEFAULT 1;`,
	// Room in each page for the new version of a row: a task's status
	// changes leave its indexed columns as they were, so they are written
	// beside it (HOT) without touching the indexes.
	`ALTER TABLE sake_tasks SET (fillfactor = 70);`,
	// Each replica's listening backend: a change a client asked for is
	// answered once every replica whose backend lives has taken it in.
	pglisten.MembersTable(listenersTable),
}
