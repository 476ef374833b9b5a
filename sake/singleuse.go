package sake

import (
	"crypto/rand"
	"encoding/base64"
	"sync"
)

// usedStates remembers the nonces of redeemed single-use states until
// their states expire.
type usedStates struct {
	mu sync.Mutex
	m  map[string]int64 // nonce -> expiry (Unix seconds)
}

var errStateUsed = InvalidParams("Invalid requestState: it was already used, and this tool runs each state once; start the request again without it")

// redeem marks nonce used, failing if it already was or if there is no
// room to remember it (max of them at most).
func (u *usedStates) redeem(nonce string, expires, now int64, max int) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, used := u.m[nonce]; used {
		return errStateUsed
	}
	if u.m == nil {
		u.m = make(map[string]int64)
	}
	if len(u.m) >= max {
		for k, exp := range u.m {
			if exp < now {
				delete(u.m, k)
			}
		}
		if len(u.m) >= max {
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
