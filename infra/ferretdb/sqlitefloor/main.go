// Command sqlitefloor measures the store's floor under a collection's inserts: the rows FerretDB stored
// for it (its own JSON, as written), inserted again by the runner's SQLite build alone, 1,000 rows per
// INSERT in autocommit as the runner writes them, with the collection's indexes maintained per insert,
// built once at the end, or `_id` only. It prints this process's CPU ms per row: parse, index, page and
// WAL work, with no wire protocol, BSON or FerretDB between (ADR 0102).
//
//	go run -modfile=../../.infra/ferretdb/build/go.mod ./sqlitefloor <database>.sqlite <collection> [rounds]
//
// (from infra/ferretdb; the build's go.mod carries the runner's patches, the committed one does not).
package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite"
)

const rowsPerInsert = 1_000

// cpuMs is this process's CPU time so far (user + system), in ms.
func cpuMs() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		panic(err)
	}

	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e6
}

// collection is a FerretDB collection as stored: its table, index statements and rows.
type collection struct {
	createTable string
	idIndex     string
	secondary   []string
	table       string
	rows        []string
}

func load(path, name string) (*collection, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()

	c := &collection{}
	if err = db.QueryRow(`SELECT table_name FROM _ferretdb_collections WHERE name = ?`, name).Scan(&c.table); err != nil {
		return nil, fmt.Errorf("collection %q: %w", name, err)
	}

	if err = db.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, c.table).Scan(&c.createTable); err != nil {
		return nil, err
	}

	indexes, err := db.Query(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`, c.table)
	if err != nil {
		return nil, err
	}
	for indexes.Next() {
		var indexName, statement string
		if err = indexes.Scan(&indexName, &statement); err != nil {
			return nil, err
		}
		// FerretDB names an index <table>_<index name>; MongoDB's `_id` index is `_id_`.
		if indexName == c.table+"__id_" {
			c.idIndex = statement
		} else {
			c.secondary = append(c.secondary, statement)
		}
	}
	if err = indexes.Err(); err != nil {
		return nil, err
	}

	rows, err := db.Query(fmt.Sprintf(`SELECT _ferretdb_sjson FROM %q`, c.table))
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var row string
		if err = rows.Scan(&row); err != nil {
			return nil, err
		}
		c.rows = append(c.rows, row)
	}

	return c, rows.Err()
}

// insert writes the rows into a fresh database with the runner's pragmas and returns CPU ms per row
// for the inserts and for building the secondary indexes afterwards (zero unless buildAtEnd).
func (c *collection) insert(dir string, withIndexes, buildAtEnd bool) (insertMs, buildMs float64, rate float64, err error) {
	path := filepath.Join(dir, "floor.sqlite")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(path + suffix)
	}

	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)&_pragma=synchronous(normal)&_pragma=auto_vacuum(none)")
	if err != nil {
		return 0, 0, 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	exec := func(statement string, args ...any) {
		if err == nil {
			_, err = db.Exec(statement, args...)
		}
	}

	started, startedAt := cpuMs(), time.Now()
	exec(c.createTable)
	exec(c.idIndex)
	if withIndexes && !buildAtEnd {
		for _, statement := range c.secondary {
			exec(statement)
		}
	}

	for start := 0; start < len(c.rows) && err == nil; start += rowsPerInsert {
		batch := c.rows[start:min(start+rowsPerInsert, len(c.rows))]
		args := make([]any, len(batch))
		for i, row := range batch {
			args[i] = row
		}
		exec(fmt.Sprintf(`INSERT INTO %q (_ferretdb_sjson) VALUES %s`, c.table, strings.TrimSuffix(strings.Repeat("(?), ", len(batch)), ", ")), args...)
	}

	inserted := cpuMs()
	if withIndexes && buildAtEnd {
		for _, statement := range c.secondary {
			exec(statement)
		}
	}

	n := float64(len(c.rows))

	return (inserted - started) / n, (cpuMs() - inserted) / n, n / time.Since(startedAt).Seconds(), err
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: sqlitefloor <database>.sqlite <collection> [rounds]")
		os.Exit(2)
	}

	rounds := 3
	if len(os.Args) > 3 {
		rounds, _ = strconv.Atoi(os.Args[3])
	}

	c, err := load(os.Args[1], os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "sqlitefloor:", err)
		os.Exit(1)
	}

	dir, err := os.MkdirTemp("", "sqlitefloor")
	if err != nil {
		fmt.Fprintln(os.Stderr, "sqlitefloor:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)

	fmt.Printf("%d rows of %s, %d secondary indexes, %d per INSERT\n", len(c.rows), os.Args[2], len(c.secondary), rowsPerInsert)

	shapes := []struct {
		label                   string
		withIndexes, buildAtEnd bool
	}{
		{"indexes maintained per insert", true, false},
		{"_id only, then the indexes built", true, true},
		{"_id only", false, false},
	}

	for round := 1; round <= rounds; round++ {
		for _, shape := range shapes {
			insertMs, buildMs, rate, err := c.insert(dir, shape.withIndexes, shape.buildAtEnd)
			if err != nil {
				fmt.Fprintln(os.Stderr, "sqlitefloor:", err)
				os.Exit(1)
			}
			fmt.Printf("round %d, %s: CPU ms/row %.4f (insert %.4f, build %.4f), %.0f rows/s\n",
				round, shape.label, insertMs+buildMs, insertMs, buildMs, rate)
		}
	}
}
