package client

import "sync"

// scratchBufs holds buffers a request is encoded in when nothing keeps it
// once the call is done: the _meta of a forwarded request, copied into
// the request at once, and a request over stdio, copied into the write
// queue.
var scratchBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// maxScratch is the largest scratch buffer kept: one huge request must not
// pin its buffer for the life of the process.
const maxScratch = 64 << 10

func getScratch() *[]byte { return scratchBufs.Get().(*[]byte) }

func putScratch(bp *[]byte) {
	if cap(*bp) <= maxScratch {
		*bp = (*bp)[:0]
		scratchBufs.Put(bp)
	}
}
