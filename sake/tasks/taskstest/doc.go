// Package taskstest checks that an implementation of tasks.Store keeps
// the contract the task manager relies on: copies in and out, atomic
// updates, ownership-blind storage, newest-first paging with a stable
// order for ties, and expiry listing.
//
// A store in another package runs it from its own test:
//
//	func TestStore(t *testing.T) {
//		taskstest.StoreContract(t, func(t *testing.T) tasks.Store {
//			return newEmptyStore(t)
//		})
//	}
package taskstest
