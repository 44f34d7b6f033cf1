package main

import (
	"testing"
	"time"
)

func TestCheckpointQueryTurnsSQLitesOwnOffOnlyWhenTheRunnerCheckpoints(t *testing.T) {
	if got := checkpointQuery(0); got != "" {
		t.Fatalf("interval 0 keeps SQLite's automatic checkpoint, got %q", got)
	}
	if got, want := checkpointQuery(500*time.Millisecond), "&_pragma=wal_autocheckpoint(0)&_checkpoint_every=500"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got, want := checkpointQuery(time.Microsecond), "&_pragma=wal_autocheckpoint(0)&_checkpoint_every=1"; got != want {
		t.Fatalf("a positive interval under a millisecond is one millisecond, not zero: got %q, want %q", got, want)
	}
}
