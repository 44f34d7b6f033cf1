package wireproxy

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// Stats tallies the commands the proxy forwards, per command and namespace, with the time each
// spent in FerretDB. An operator turns it on (--stats-interval) to see which collections spend the
// write lock: on this backend that lock is the platform's throughput ceiling.
type Stats struct {
	mu      sync.Mutex
	tallies map[statKey]*statTally
}

type statKey struct {
	command   string
	namespace string
	write     bool
}

type statTally struct {
	count      int
	statements int
	busy       time.Duration
}

// NewStats returns an empty tally.
func NewStats() *Stats { return &Stats{tallies: map[statKey]*statTally{}} }

func (s *Stats) record(req []byte, write bool, took time.Duration) {
	if s == nil {
		return
	}
	command, namespace, statements := describe(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	key := statKey{command, namespace, write}
	tally := s.tallies[key]
	if tally == nil {
		tally = &statTally{}
		s.tallies[key] = tally
	}
	tally.count++
	tally.statements += statements
	tally.busy += took
}

// Report writes the tallies since the last report, busiest first, and starts new ones.
func (s *Stats) Report(w io.Writer, over time.Duration) {
	s.mu.Lock()
	tallies := s.tallies
	s.tallies = map[statKey]*statTally{}
	s.mu.Unlock()
	if len(tallies) == 0 {
		return
	}
	keys := make([]statKey, 0, len(tallies))
	var writeBusy time.Duration
	byDatabase := map[string]time.Duration{}
	for key, tally := range tallies {
		keys = append(keys, key)
		if key.write {
			writeBusy += tally.busy
			database, _, _ := strings.Cut(key.namespace, ".")
			byDatabase[database] += tally.busy
		}
	}
	busiest, busiestBusy := "", time.Duration(0)
	for database, busy := range byDatabase {
		if busy > busiestBusy || (busy == busiestBusy && database < busiest) {
			busiest, busiestBusy = database, busy
		}
	}
	sort.Slice(keys, func(i, j int) bool { return tallies[keys[i]].busy > tallies[keys[j]].busy })
	var out strings.Builder
	// With a lock per database (ADR 0046) the sum may pass 100%; the busiest database's share is
	// the one that bounds throughput.
	fmt.Fprintf(&out, "ferretdb-runner stats over %s: write lock held %.0f%% of the time in all, %.0f%% by the busiest database %s\n",
		over.Round(time.Second), 100*writeBusy.Seconds()/over.Seconds(), 100*busiestBusy.Seconds()/over.Seconds(), busiest)
	for _, key := range keys {
		tally := tallies[key]
		kind := "read "
		if key.write {
			kind = "write"
		}
		fmt.Fprintf(&out, "  %s %-14s %-48s %7d cmds %8d stmts %9.1f ms busy %6.2f ms/cmd\n", kind, key.command,
			key.namespace, tally.count, tally.statements, float64(tally.busy.Microseconds())/1000,
			float64(tally.busy.Microseconds())/1000/float64(tally.count))
	}
	_, _ = io.WriteString(w, out.String())
}

// describe names a request's command, its namespace (database.collection) and its number of
// statements or documents, as far as the body and its document sequences tell.
func describe(req []byte) (command, namespace string, statements int) {
	body, sequences, err := splitSections(req)
	if err != nil {
		return "?", "?", 0
	}
	var collection, database string
	_ = eachElement(body, func(kind byte, key string, value []byte) error {
		switch {
		case command == "":
			command = key
			if kind == bsonString && len(value) > 4 {
				collection = string(value[4 : len(value)-1])
			}
		case key == "$db" && kind == bsonString && len(value) > 4:
			database = string(value[4 : len(value)-1])
		case kind == bsonArray && (key == "documents" || key == "updates" || key == "deletes"):
			_ = eachElement(value, func(byte, string, []byte) error { statements++; return nil })
		}
		return nil
	})
	for _, documents := range sequences {
		for len(documents) > 0 {
			size, err := documentSize(documents)
			if err != nil {
				break
			}
			statements++
			documents = documents[size:]
		}
	}
	return command, database + "." + collection, statements
}
