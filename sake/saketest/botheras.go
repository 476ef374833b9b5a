package saketest

import "testing"

// BothEras runs body twice, as subtests, one after the other: "modern"
// (the 2026-07-28 protocol, no extra option) and "legacy" (the 2025-11-25
// handshake, with Legacy()). Pass opts on to Connect:
//
//	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
//		c := saketest.Connect(t, Greeter{}, opts...)
//		...
//	})
//
// It returns once both have run, so what the test checks after it sees
// both runs. Call t.Parallel() in the test itself to run it beside other
// tests.
func BothEras(t *testing.T, body func(t *testing.T, opts ...Option)) {
	t.Helper()
	t.Run("modern", func(t *testing.T) { body(t) })
	t.Run("legacy", func(t *testing.T) { body(t, Legacy()) })
}
