package main

import "testing"

func TestPragmaQuery(t *testing.T) {
	for _, c := range []struct{ list, query string }{
		{"", ""},
		{"cache_size(-65536)", "&_pragma=cache_size(-65536)"},
		{" cache_size(-65536) , mmap_size(268435456) ,", "&_pragma=cache_size(-65536)&_pragma=mmap_size(268435456)"},
	} {
		query, err := pragmaQuery(c.list, "_pragma")
		if err != nil || query != c.query {
			t.Errorf("pragmaQuery(%q) = %q, %v; want %q", c.list, query, err, c.query)
		}
	}
	// Anything but name(integer) could smuggle more URL parameters into every connection.
	for _, bad := range []string{"cache_size", "cache_size(big)", "journal_mode(off)&_txlock=x", "x(1)&y(2)", "Cache_Size(1)"} {
		if _, err := pragmaQuery(bad, "_pragma"); err == nil {
			t.Errorf("pragmaQuery(%q) accepted", bad)
		}
	}
}
