package sake

import (
	"crypto/rand"
	"encoding/base64"
	"sync"
)

// MaxSingleUseStates bounds how many redeemed single-use requestStates
// (ToolDef.SingleUseState) a server remembers until they expire; a retry
// that would need one more is refused with CodeServerBusy. Each takes
// about 100 bytes.
const MaxSingleUseStates = 100_000

// usedStates remembers the nonces of redeemed single-use states until
// their states expire.
type usedStates struct {
	mu sync.Mutex
	m  map[string]int64 // nonce -> expiry (Unix seconds)
}

var errStateUsed = InvalidParams("Invalid requestState: it was already used, and this tool runs each state once; start the request again without it")

// redeem marks nonce used, failing if it already was or if there is no
// room to remember it.
func (u *usedStates) redeem(nonce string, expires, now int64) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, used := u.m[nonce]; used {
		return errStateUsed
	}
	if u.m == nil {
		u.m = make(map[string]int64)
	}
	if len(u.m) >= MaxSingleUseStates {
		for k, exp := range u.m {
			if exp < now {
				delete(u.m, k)
			}
		}
		if len(u.m) >= MaxSingleUseStates {
			return &Error{Code: CodeServerBusy, Message: "Server busy: too many single-use request states are outstanding; retry once some have expired"}
		}
	}
	u.m[nonce] = expires
	return nil
}

func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
