package wireproxy

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

func TestSlowLogPrintsOnlyCommandsPastItsThreshold(t *testing.T) {
	var out strings.Builder
	log := NewSlowLog(&out, 50*time.Millisecond)
	req := opMsgOf(t, 1, 0, bson.D{{Key: "insert", Value: "messages"}, {Key: "$db", Value: "chat"}}, "documents", []bson.D{{{Key: "_id", Value: 1}}, {{Key: "_id", Value: 2}}})
	arrived := time.UnixMilli(1_700_000_000_123).Add(456 * time.Microsecond)

	log.record(req, true, arrived, 20*time.Millisecond, 29*time.Millisecond)
	if out.Len() != 0 {
		t.Fatalf("49 ms is under the threshold, yet logged: %q", out.String())
	}
	log.record(req, true, arrived, 40*time.Millisecond, 12500*time.Microsecond)
	want := "ferretdb-runner slow command: at 1700000000123.456 waited 40.0 ms ran 12.5 ms write insert chat.messages 2 stmts\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}

	var none *SlowLog
	none.record(req, false, arrived, time.Second, time.Second) // off: a nil log records nothing and does not panic
}
