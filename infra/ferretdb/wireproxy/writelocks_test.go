package wireproxy

import (
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

func TestCommandDatabaseReadsDollarDB(t *testing.T) {
	insert := bson.D{{Key: "insert", Value: "messages"}, {Key: "ordered", Value: true}, {Key: "$db", Value: "chat_messages"}}
	for name, tc := range map[string]struct {
		msg  []byte
		want string
	}{
		"named":      {opMsgOf(t, 1, 0, insert, "documents", []bson.D{{{Key: "_id", Value: "a"}}}), "chat_messages"},
		"admin":      {opMsgOf(t, 1, 0, bson.D{{Key: "renameCollection", Value: "a.b"}, {Key: "$db", Value: "admin"}}, "", nil), "admin"},
		"none":       {opMsgOf(t, 1, 0, bson.D{{Key: "insert", Value: "messages"}}, "", nil), everyDatabase},
		"empty":      {opMsgOf(t, 1, 0, bson.D{{Key: "insert", Value: "messages"}, {Key: "$db", Value: ""}}, "", nil), everyDatabase},
		"not string": {opMsgOf(t, 1, 0, bson.D{{Key: "insert", Value: "messages"}, {Key: "$db", Value: int32(1)}}, "", nil), everyDatabase},
		"twice":      {opMsgOf(t, 1, 0, bson.D{{Key: "insert", Value: "m"}, {Key: "$db", Value: "a"}, {Key: "$db", Value: "b"}}, "", nil), everyDatabase},
		"not OP_MSG": {make([]byte, 16), everyDatabase},
	} {
		if got := commandDatabase(tc.msg); got != tc.want {
			t.Errorf("%s: commandDatabase = %q, want %q", name, got, tc.want)
		}
	}
}

// acquired reports whether lock returns within a short wait, and hands back its unlock (nil if not).
func acquired(locks *WriteLocks, database string) (bool, func(), <-chan func()) {
	done := make(chan func(), 1)
	go func() { done <- locks.Lock(database) }()
	select {
	case unlock := <-done:
		return true, unlock, done
	case <-time.After(100 * time.Millisecond):
		return false, nil, done
	}
}

func TestWriteLocksOverlapAcrossDatabasesAndQueueWithinOne(t *testing.T) {
	locks := NewWriteLocks(true)
	unlockA := locks.Lock("a")

	ok, unlockB, _ := acquired(locks, "b")
	if !ok {
		t.Fatal("a write to database b waits for a write to database a")
	}
	ok, _, secondA := acquired(locks, "a")
	if ok {
		t.Fatal("two writes to database a run at once")
	}
	unlockA()
	select {
	case unlock := <-secondA:
		unlock()
	case <-time.After(5 * time.Second):
		t.Fatal("the second write to database a never ran after the first ended")
	}
	unlockB()
}

func TestWriteLocksUnknownDatabaseTakesEveryLock(t *testing.T) {
	for _, database := range []string{everyDatabase, "admin"} {
		locks := NewWriteLocks(true)
		unlockA := locks.Lock("a")
		ok, _, everything := acquired(locks, database)
		if ok {
			t.Fatalf("%q: a write to every database runs beside a write to database a", database)
		}
		unlockA()
		var unlockAll func()
		select {
		case unlockAll = <-everything:
		case <-time.After(5 * time.Second):
			t.Fatalf("%q: the write to every database never ran", database)
		}
		ok, _, b := acquired(locks, "b")
		if ok {
			t.Fatalf("%q: a write to database b runs beside a write to every database", database)
		}
		unlockAll()
		select {
		case unlock := <-b:
			unlock()
		case <-time.After(5 * time.Second):
			t.Fatalf("%q: the write to database b never ran", database)
		}
	}
}

// Through the relay: while a write to database a sits at the backend unanswered, a write to database
// b reaches its backend, and a second write to database a does not.
func TestRelayLetsWritesToTwoDatabasesOverlap(t *testing.T) {
	locks := NewWriteLocks(true)
	type link struct{ client, backend net.Conn }
	links := make([]link, 3)
	for i := range links {
		clientSide, proxyFront := net.Pipe()
		proxyBack, backendSide := net.Pipe()
		t.Cleanup(func() { clientSide.Close(); backendSide.Close() })
		go func() { _ = relay(proxyFront, proxyBack, locks, nil, nil) }()
		links[i] = link{clientSide, backendSide}
	}
	write := func(id uint32, database string) []byte {
		return opMsgOf(t, id, 0, bson.D{{Key: "update", Value: "c"}, {Key: "$db", Value: database}}, "updates", updateStatements(1))
	}
	arrived := func(l link) <-chan uint32 {
		got := make(chan uint32, 1)
		go func() {
			if msg, err := readMessage(l.backend); err == nil {
				got <- requestID(msg)
			}
		}()
		return got
	}

	go func() { _, _ = links[0].client.Write(write(1, "a")) }()
	if id := <-arrived(links[0]); id != 1 {
		t.Fatalf("backend 0 got request %d", id)
	}
	go func() { _, _ = links[1].client.Write(write(2, "b")) }()
	go func() { _, _ = links[2].client.Write(write(3, "a")) }()
	atB, atSecondA := arrived(links[1]), arrived(links[2])
	select {
	case <-atB:
	case <-time.After(5 * time.Second):
		t.Fatal("the write to database b waited for the write to database a")
	}
	select {
	case <-atSecondA:
		t.Fatal("a second write to database a reached FerretDB while the first was there")
	case <-time.After(200 * time.Millisecond):
	}
	// The first write to a is answered: the second may go.
	reply := errorReply(1, badValueCode, badValueCodeName, "done")
	go func() { _, _ = links[0].backend.Write(reply) }()
	if _, err := readMessage(links[0].client); err != nil {
		t.Fatal(err)
	}
	select {
	case <-atSecondA:
	case <-time.After(5 * time.Second):
		t.Fatal("the second write to database a never reached FerretDB")
	}
}
