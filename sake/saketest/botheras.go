package saketest

import (
	"sync"
	"testing"
)

// BothEras runs body twice, as subtests that run at the same time:
// "modern" (the 2026-07-28 protocol, no extra option) and "legacy" (the
// 2025-11-25 handshake, with Legacy()). Pass opts on to Connect:
//
//	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
//		c := saketest.Connect(t, Greeter{}, opts...)
//		...
//	})
//
// BothEras returns when both subtests have finished, so what the test does
// after it sees their effects, and t.Failed() reports their failures.
// (A body that calls t.Parallel itself is paused until the whole test
// returns, as any parallel subtest is: BothEras then returns before it
// runs.)
func BothEras(t *testing.T, body func(t *testing.T, opts ...Option)) {
	t.Helper()
	var wg sync.WaitGroup
	wg.Go(func() { t.Run("modern", func(t *testing.T) { body(t) }) })
	wg.Go(func() { t.Run("legacy", func(t *testing.T) { body(t, Legacy()) }) })
	wg.Wait()
}
