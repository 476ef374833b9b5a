package state

import "time"

// SetClock replaces a MemoryStore's clock, for tests of expiry.
func (m *MemoryStore) SetClock(now func() time.Time) { m.now = now }
