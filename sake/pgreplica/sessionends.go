package pgreplica

import (
	"encoding/json"
	"time"

	"github.com/sakemcp/sake-go/sake/internal/pglisten"
)

// DefaultConfirmWait is how long a change of a session or its end waits,
// when ConfirmWait is not given, for the other replicas to confirm they
// took it in.
const DefaultConfirmWait = pglisten.DefaultConfirmWait

// relayEnded is the kind of the notice by which a replica confirms it has
// taken in a change of a session (or its end) another made: To names the
// replica that made it, Acked the number of its notice.
const relayEnded = "ended"

// listenersTable records each replica's listening backend (see
// pglisten.Confirmations).
const listenersTable = "sake_session_listeners"

// newConfirmations returns the confirmations of the changes and ends of
// sessions of the store's replica.
func newConfirmations(st *sessionStore, wait time.Duration) *pglisten.Confirmations {
	return &pglisten.Confirmations{Pool: st.pool, Table: listenersTable, Member: st.replica, Channel: st.channel,
		Logger: st.logger, Wait: wait, Payload: func(to string, n uint64) string {
			b, _ := json.Marshal(relayWire{Origin: st.replica, Kind: relayEnded, To: to, Acked: n})
			return string(b)
		}}
}
