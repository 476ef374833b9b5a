package pgreplica

import (
	"encoding/json"
	"time"

	"github.com/sakemcp/sake-go/sake/internal/pglisten"
)

// DefaultEndWait is how long the end of a session (a DELETE, an idle
// expiry) waits, when EndWait is not given, for the other replicas to
// confirm they have dropped it.
const DefaultEndWait = pglisten.DefaultConfirmWait

// relayEnded is the kind of the notice by which a replica confirms it has
// dropped a session another ended: To names the replica that ended it,
// Acked the number of its notice.
const relayEnded = "ended"

// listenersTable records each replica's listening backend (see
// pglisten.Confirmations).
const listenersTable = "sake_session_listeners"

// newEndConfirmations returns the confirmations of session ends of the
// store's replica.
func newEndConfirmations(st *sessionStore, wait time.Duration) *pglisten.Confirmations {
	return &pglisten.Confirmations{Pool: st.pool, Table: listenersTable, Member: st.replica, Channel: st.channel,
		Logger: st.logger, Wait: wait, Payload: func(to string, n uint64) string {
			b, _ := json.Marshal(relayWire{Origin: st.replica, Kind: relayEnded, To: to, Acked: n})
			return string(b)
		}}
}
