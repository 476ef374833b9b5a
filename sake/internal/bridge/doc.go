// Package bridge is how package sake/transport reaches the parts of the
// server that only transports use, without them showing in the
// documentation of package sake, where tool authors read.
//
// Package sake fills Root when it is initialised, and package transport
// imports sake, so every program that can call into package transport has
// Root set. Bridge imports only the standard library: values of the
// server's own types (*sake.Server, *sake.Session, *sake.Identity) travel
// as any, and the side that made them asserts them back. Passing a pointer
// through any allocates nothing.
package bridge
