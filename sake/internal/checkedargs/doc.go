// Package checkedargs carries tool arguments that a server has already
// read as valid JSON (a proxy's, as its caller sent them) to the client
// that forwards them, so that the client does not scan them a second
// time. Only packages of this module can name its type: arguments from
// any other caller of the client are always checked.
package checkedargs
