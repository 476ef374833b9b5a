package pgusertokens

// LockKey is lockKey, for tests that hold a user's turn.
var LockKey = lockKey
