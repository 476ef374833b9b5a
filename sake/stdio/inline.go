package stdio

import (
	"time"

	"github.com/sakemcp/sake-go/sake/transport"
)

// The reading goroutine runs a request itself when it can, as a plain
// line server would: no hand-off to a worker, and its response joins the
// others of the same burst in one write. It must never stop reading for
// long, though, or a cancellation or an answer the request waits for
// would not be read. So a watchdog looks at the reading goroutine once
// per handoffAfter: when it finds the same inline run as at its previous
// look, it starts a new reading goroutine, and the old one finishes its
// run and then serves the queue as a worker (or returns). The next
// pooledAfterHandoff requests go to the workers, so a connection whose
// tools take long rarely pays for a hand-off.

// runInline runs m on the reading goroutine when a slot is free and no
// request waits, else queues it. It reports whether the calling goroutine
// still holds the reading afterwards.
func (p *pool) runInline(m transport.Message, gen uint64) (reading bool) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return true
	}
	if p.pooled > 0 || p.head < len(p.queue) || p.running >= p.cn.cfg.maxConcurrent {
		if p.pooled > 0 {
			p.pooled--
		}
		p.submitLocked(m)
		return true
	}
	p.running++
	p.holdLocked()
	p.mu.Unlock()

	p.cn.run(m)

	p.mu.Lock()
	p.running--
	if p.head < len(p.queue) && p.running < p.cn.cfg.maxConcurrent {
		p.cond.Signal()
	}
	return p.releaseLocked(gen, true)
}

// flush writes out the output's buffer on the reading goroutine, under
// the watchdog: a client that does not read its input must not stop the
// reading of cancellations for long. It reports whether the calling
// goroutine still holds the reading.
func (p *pool) flush(gen uint64) (reading bool) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return true
	}
	p.holdLocked()
	p.mu.Unlock()
	p.cn.out.flush()
	p.mu.Lock()
	return p.releaseLocked(gen, false)
}

// holdLocked starts an inline run, counted in wg, and arms the watchdog.
// p.mu is held and the pool is open.
func (p *pool) holdLocked() {
	p.wg.Add(1)
	p.inlineID++
	p.inlineOn = true
	if !p.armed {
		p.armed = true
		p.seenID = p.inlineID
		if p.timer == nil {
			p.timer = time.AfterFunc(handoffAfter, p.watch)
		} else {
			p.timer.Reset(handoffAfter)
		}
	}
}

// releaseLocked ends the inline run of the reading goroutine of
// generation gen with p.mu held, and unlocks it. When the reading was
// handed on meanwhile, the goroutine serves the queue as a worker if work
// may follow and a worker is missing, and returns false.
func (p *pool) releaseLocked(gen uint64, work bool) (reading bool) {
	if p.reader == gen {
		p.inlineOn = false
		p.mu.Unlock()
		p.wg.Done()
		return true
	}
	if !work || p.closed || p.workers >= p.cn.cfg.maxConcurrent {
		p.mu.Unlock()
		p.wg.Done()
		return false
	}
	p.workers++
	p.mu.Unlock()
	p.worker() // its wg.Done ends this run's count
	return false
}

// watch is the watchdog's tick.
func (p *pool) watch() {
	p.mu.Lock()
	if p.closed || !p.inlineOn {
		p.armed = false
		p.mu.Unlock()
		return
	}
	if p.inlineID != p.seenID {
		p.seenID = p.inlineID
		p.timer.Reset(handoffAfter)
		p.mu.Unlock()
		return
	}
	// The same run held the reading for a whole tick: hand it on.
	p.armed = false
	p.handOffLocked()
}

// handOff hands the reading on to a new goroutine now if an inline run
// holds it: the run waits for something only the input can bring.
func (p *pool) handOff() {
	p.mu.Lock()
	if p.closed || !p.inlineOn {
		p.mu.Unlock()
		return
	}
	p.handOffLocked()
}

// handOffLocked starts a new reading goroutine while an inline run holds
// the reading; the running one becomes a worker once its run ends. p.mu
// is held; it unlocks it. A timer still armed finds no inline run and
// stops.
func (p *pool) handOffLocked() {
	p.reader++
	gen := p.reader
	p.inlineOn = false
	p.pooled = pooledAfterHandoff
	p.mu.Unlock()
	go p.cn.readOn(gen)
}
