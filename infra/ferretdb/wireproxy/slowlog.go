package wireproxy

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// SlowLog prints one line for every command whose wait for the write lock plus its time in FerretDB
// passes a threshold, stamped with the wall clock in milliseconds, so that a stall seen by a client
// can be lined up with what held the store (ADR 0155). An operator turns it on (--slow-commands).
type SlowLog struct {
	mu        sync.Mutex
	w         io.Writer
	threshold time.Duration
}

// NewSlowLog returns a log of the commands that take at least threshold, written to w.
func NewSlowLog(w io.Writer, threshold time.Duration) *SlowLog {
	return &SlowLog{w: w, threshold: threshold}
}

// record logs a command that arrived at arrived, waited wait for its write lock (0 for a read) and
// then spent took in FerretDB, when wait+took reaches the threshold.
func (l *SlowLog) record(req []byte, write bool, arrived time.Time, wait, took time.Duration) {
	if l == nil || wait+took < l.threshold {
		return
	}
	command, namespace, statements := describe(req)
	kind := "read"
	if write {
		kind = "write"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = fmt.Fprintf(l.w, "ferretdb-runner slow command: at %d.%03d waited %.1f ms ran %.1f ms %s %s %s %d stmts\n",
		arrived.UnixMilli(), arrived.Nanosecond()/1000%1000, ms(wait), ms(took), kind, command, namespace, statements)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
