package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the driver FerretDB itself uses
)

// FerretDB v1.24 creates each collection's unique `_id` index on `_ferretdb_sjson->"_id"` but filtered
// on `_ferretdb_sjson->'$._id'`; SQLite matches expression indexes by their text, so every find by `_id`
// scanned. The runner used to add a second index on the filter's spelling to every table (ADR 0011).
// Our FerretDB build now filters on the unique index's own spelling (patches/0002, ADR 0046), so that
// second index only costs: each insert, update and delete maintained it. dropIDPathIndexes removes it
// from the databases of an older data directory, once, before FerretDB opens them.
func dropIDPathIndexes(ctx context.Context, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, entry := range entries {
		if entry.IsDir() || !strings.HasSuffix(entry.Name(), ".sqlite") {
			continue
		}
		if err := dropDatabaseIDPathIndexes(ctx, filepath.Join(dir, entry.Name())); err != nil {
			return fmt.Errorf("%s: %w", entry.Name(), err)
		}
	}
	return nil
}

func dropDatabaseIDPathIndexes(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%\_\_id\_path' ESCAPE '\'`)
	if err != nil {
		return err
	}
	var indexes []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		indexes = append(indexes, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, index := range indexes {
		if _, err := db.ExecContext(ctx, fmt.Sprintf(`DROP INDEX IF EXISTS %q`, index)); err != nil {
			return err
		}
	}
	return nil
}
