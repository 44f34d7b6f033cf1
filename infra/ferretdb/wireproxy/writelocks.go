package wireproxy

import "sync"

// WriteLocks lets one write command at a time into each database. A command naming no database we
// can read, or the admin database (whose commands, such as renameCollection, may reach any
// database), takes every lock at once: it waits for the writes in flight everywhere and holds back
// all the others until it ends.
type WriteLocks struct {
	// all is held shared by a write to one database and exclusively by a write to every database.
	all sync.RWMutex
	mu  sync.Mutex
	// byDatabase grows by one mutex per database ever written; a deployment has a handful.
	byDatabase map[string]*sync.Mutex
	storeWide  bool
}

// NewWriteLocks returns the locks of a store with no write in flight: one per database, or, with
// perDatabase false, one for the whole store (every write takes every lock). The runner's default is
// the latter: the SQLite FerretDB embeds is C translated to Go whose allocator sits behind one global
// mutex, so writes to two databases contend rather than overlap, and cost more CPU (ADR 0046).
func NewWriteLocks(perDatabase bool) *WriteLocks {
	return &WriteLocks{byDatabase: map[string]*sync.Mutex{}, storeWide: !perDatabase}
}

// everyDatabase is what commandDatabase returns when a command's database cannot be read.
const everyDatabase = ""

// Lock waits until a write to database may run and returns the function that ends it.
// database everyDatabase (or "admin") takes every lock.
func (l *WriteLocks) Lock(database string) (unlock func()) {
	if l.storeWide || database == everyDatabase || database == "admin" {
		l.all.Lock()
		return l.all.Unlock
	}
	l.mu.Lock()
	mu := l.byDatabase[database]
	if mu == nil {
		mu = &sync.Mutex{}
		l.byDatabase[database] = mu
	}
	l.mu.Unlock()
	l.all.RLock()
	mu.Lock()
	return func() {
		mu.Unlock()
		l.all.RUnlock()
	}
}

// commandDatabase returns the database an OP_MSG command runs in (its body's `$db`), or
// everyDatabase when the message has none we can read.
func commandDatabase(msg []byte) string {
	body, _, err := splitSections(msg)
	if err != nil {
		return everyDatabase
	}
	database, seen := everyDatabase, 0
	err = eachElement(body, func(kind byte, key string, value []byte) error {
		if key != "$db" {
			return nil
		}
		seen++
		if kind == bsonString && len(value) > 5 {
			database = string(value[4 : len(value)-1])
		}
		return nil
	})
	if err != nil || seen != 1 {
		return everyDatabase // a body we cannot read to its end, or two `$db`: no guess at which counts
	}
	return database
}
