// Package toolsearch replaces a large tool catalog with search.
package toolsearch
