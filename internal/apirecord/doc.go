// Command apirecord keeps the record of the module's public API in api/:
// one line per exported declaration of every package that is neither a
// command nor internal, in the style of the Go project's own api/ files.
//
// api/vX.Y.Z.txt is the API of a release; the newest one is the baseline.
// Each file in api/next records one change made since, so that changes made
// in parallel do not touch the same file: a line "pkg P, ..." was added and
// a line "-pkg P, ..." was removed (a changed signature is both). The test
// of this package fails when the code differs from the baseline with every
// next file applied.
//
// Usage, from the module's root:
//
//	go run ./internal/apirecord              # print how the code differs from the record
//	go run ./internal/apirecord -next NAME   # write api/next/NAME.txt with that difference
//	go run ./internal/apirecord -release vX.Y.Z  # fold api/next into api/vX.Y.Z.txt
//
// -next is idempotent: it leaves api/next/NAME.txt out of the record it
// compares with and writes the file again (or removes it when nothing is
// left to record), so it can be run again after every change on a branch.
package main
