package saketest

import "testing"

// BothEras runs body twice, as parallel subtests: "modern" (the
// 2026-07-28 protocol, no extra option) and "legacy" (the 2025-11-25
// handshake, with Legacy()). Pass opts on to Connect:
//
//	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
//		c := saketest.Connect(t, Greeter{}, opts...)
//		...
//	})
func BothEras(t *testing.T, body func(t *testing.T, opts ...Option)) {
	t.Helper()
	t.Run("modern", func(t *testing.T) {
		t.Parallel()
		body(t)
	})
	t.Run("legacy", func(t *testing.T) {
		t.Parallel()
		body(t, Legacy())
	})
}
