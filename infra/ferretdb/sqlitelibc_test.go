package main

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// The runner's build patches modernc's libc so memcmp and memcpy run Go's routines (ADR 0102). SQLite
// orders text by memcmp (BINARY collation) and finds a cached JSON parse by memcmp of the whole text:
// a wrong sign or a false "equal" would misorder an index or key a row by another row's fields. Run
// with the build's go.mod (`go test -modfile=../../.infra/ferretdb/build/go.mod`) to test the patch.
func TestSQLiteOrdersAndKeysByExactBytes(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "libc.sqlite")+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	// Long shared prefixes that differ at every position class (first byte, mid-word, last byte), in
	// bytes above 0x7f too (UTF-8), and equal lengths, like FerretDB's documents with their schema.
	prefix := strings.Repeat(`{"$s":{"p":{"k":{"t":"string"}}},`, 40)
	var keys []string
	for i, tail := range []string{"a", "b", "é", "z", "ä", "A", "\u00ff", "aa", "ab", "", "~", "\u4e2d"} {
		keys = append(keys, fmt.Sprintf("%s%03d", tail, i), prefix+tail, tail+"|"+prefix)
	}

	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TABLE words (v TEXT NOT NULL) STRICT`)
	exec(`CREATE INDEX words_v ON words (v)`)
	exec(`CREATE TABLE docs (j TEXT NOT NULL) STRICT`)
	exec(`CREATE INDEX docs_k ON docs (j->'k', j->'n')`)
	for i, key := range keys {
		exec(`INSERT INTO words (v) VALUES (?)`, key)
		// Equal-length documents sharing their first ~1.3 KB, one multi-row INSERT as FerretDB writes them.
		doc := func(n int) string { return fmt.Sprintf(`{"pad":%q,"k":%q,"n":%d}`, prefix, key, n) }
		exec(`INSERT INTO docs (j) VALUES (?), (?)`, doc(2*i), doc(2*i+1))
	}

	rows, err := db.Query(`SELECT v FROM words INDEXED BY words_v ORDER BY v`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var v string
		if err = rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	want := slices.Clone(keys)
	slices.Sort(want) // byte order, as C's memcmp orders
	if !slices.Equal(got, want) {
		t.Fatalf("index order differs from byte order: got %d keys, the first difference at %d", len(got), firstDifference(got, want))
	}

	for i, key := range keys {
		var ns []int
		found, err := db.Query(`SELECT j->>'n' FROM docs INDEXED BY docs_k WHERE j->'k' = json_quote(?) ORDER BY j->'n'`, key)
		if err != nil {
			t.Fatal(err)
		}
		for found.Next() {
			var n int
			if err = found.Scan(&n); err != nil {
				t.Fatal(err)
			}
			ns = append(ns, n)
		}
		if !slices.Equal(ns, []int{2 * i, 2*i + 1}) {
			t.Fatalf("key %d (%.40q…): found documents %v through the index, want [%d %d]", i, key, ns, 2*i, 2*i+1)
		}
	}
}

func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}

	return min(len(a), len(b))
}
