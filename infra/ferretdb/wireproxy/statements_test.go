package wireproxy

import (
	"encoding/binary"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// opMsgOf builds an OP_MSG request carrying body and, when sequence is non-empty, a kind-1 document
// sequence named identifier, as drivers send large batches.
func opMsgOf(t *testing.T, requestID uint32, flags uint32, body bson.D, identifier string, sequence []bson.D) []byte {
	t.Helper()
	raw, err := bson.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, 16)
	binary.LittleEndian.PutUint32(msg[4:8], requestID)
	binary.LittleEndian.PutUint32(msg[12:16], opMsg)
	msg = binary.LittleEndian.AppendUint32(msg, flags)
	msg = append(append(msg, 0), raw...)
	if len(sequence) > 0 {
		section := binary.LittleEndian.AppendUint32(nil, 0)
		section = append(append(section, identifier...), 0)
		for _, doc := range sequence {
			raw, err := bson.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			section = append(section, raw...)
		}
		binary.LittleEndian.PutUint32(section, uint32(len(section)))
		msg = append(append(msg, 1), section...)
	}
	if flags&flagChecksumPresent != 0 {
		msg = append(msg, 0xde, 0xad, 0xbe, 0xef) // not checked by the proxy
	}
	binary.LittleEndian.PutUint32(msg[0:4], uint32(len(msg)))
	return msg
}

func updateStatements(n int) []bson.D {
	statements := make([]bson.D, n)
	for i := range statements {
		statements[i] = bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: "doc"}, {Key: "_rev", Value: int32(i)}}},
			{Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(1)}}}}},
		}
	}
	return statements
}

func statementArray(statements []bson.D) bson.A {
	array := make(bson.A, len(statements))
	for i, s := range statements {
		array[i] = s
	}
	return array
}

func TestStatementCount(t *testing.T) {
	// Every BSON type before the statements, so that stepping over each value is exercised.
	allTypes := bson.D{
		{Key: "double", Value: 1.5},
		{Key: "string", Value: "text"},
		{Key: "document", Value: bson.D{{Key: "a", Value: int32(1)}}},
		{Key: "array", Value: bson.A{"x", int64(2)}},
		{Key: "binary", Value: primitive.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}},
		{Key: "undefined", Value: primitive.Undefined{}},
		{Key: "objectId", Value: primitive.NewObjectID()},
		{Key: "bool", Value: true},
		{Key: "dateTime", Value: primitive.DateTime(1_700_000_000_000)},
		{Key: "null", Value: nil},
		{Key: "regex", Value: primitive.Regex{Pattern: "^a.*", Options: "i"}},
		{Key: "dbPointer", Value: primitive.DBPointer{DB: "db.coll", Pointer: primitive.NewObjectID()}},
		{Key: "javascript", Value: primitive.JavaScript("function () {}")},
		{Key: "symbol", Value: primitive.Symbol("sym")},
		{Key: "codeWithScope", Value: primitive.CodeWithScope{Code: "x", Scope: bson.D{{Key: "x", Value: int32(1)}}}},
		{Key: "int32", Value: int32(7)},
		{Key: "timestamp", Value: primitive.Timestamp{T: 1, I: 2}},
		{Key: "int64", Value: int64(8)},
		{Key: "decimal", Value: primitive.NewDecimal128(1, 2)},
		{Key: "minKey", Value: primitive.MinKey{}},
		{Key: "maxKey", Value: primitive.MaxKey{}},
	}

	for name, tc := range map[string]struct {
		msg     []byte
		command string
		count   int
	}{
		"update, statements in the body": {
			msg:     opMsgOf(t, 1, 0, bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: statementArray(updateStatements(150))}, {Key: "$db", Value: "d"}}, "", nil),
			command: "update", count: 150,
		},
		"update, statements in a document sequence": {
			msg:     opMsgOf(t, 1, 0, bson.D{{Key: "update", Value: "c"}, {Key: "ordered", Value: true}, {Key: "$db", Value: "d"}}, "updates", updateStatements(150)),
			command: "update", count: 150,
		},
		"update, statements in both": {
			msg:     opMsgOf(t, 1, 0, bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: statementArray(updateStatements(3))}}, "updates", updateStatements(4)),
			command: "update", count: 7,
		},
		"update after every BSON type, with a checksum": {
			msg:     opMsgOf(t, 1, flagChecksumPresent, append(bson.D{{Key: "update", Value: "c"}}, append(allTypes, bson.E{Key: "updates", Value: statementArray(updateStatements(2))})...), "", nil),
			command: "update", count: 2,
		},
		"delete is not limited": {
			msg:     opMsgOf(t, 1, 0, bson.D{{Key: "delete", Value: "c"}, {Key: "$db", Value: "d"}}, "deletes", updateStatements(500)),
			command: "delete", count: 0,
		},
		"insert is not limited": {
			msg:     opMsgOf(t, 1, 0, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "d"}}, "documents", updateStatements(1000)),
			command: "insert", count: 0,
		},
		"a read": {
			msg:     opMsgOf(t, 1, 0, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{}}}, "", nil),
			command: "find", count: 0,
		},
	} {
		t.Run(name, func(t *testing.T) {
			command, count, err := statementCount(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if command != tc.command || count != tc.count {
				t.Fatalf("got %s with %d statements, want %s with %d", command, count, tc.command, tc.count)
			}
		})
	}
}

func TestStatementCountRejectsMalformedMessagesWithoutPanicking(t *testing.T) {
	whole := opMsgOf(t, 1, 0, bson.D{{Key: "update", Value: "c"}}, "updates", updateStatements(5))
	bodyOnly := 21 + int(binary.LittleEndian.Uint32(whole[21:25])) // a whole message without the sequence
	for cut := 21; cut < len(whole); cut++ {
		if cut == bodyOnly {
			continue
		}
		msg := append([]byte(nil), whole[:cut]...)
		binary.LittleEndian.PutUint32(msg[0:4], uint32(cut))
		if _, _, err := statementCount(msg); err == nil {
			t.Fatalf("a message cut at %d of %d bytes parsed", cut, len(whole))
		}
		if refuseOversizedCommand(msg) != nil {
			t.Fatalf("a message cut at %d bytes was refused instead of passed on", cut)
		}
	}
	wrongType := opMsgOf(t, 1, 0, bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: "not an array"}}, "", nil)
	if _, _, err := statementCount(wrongType); err == nil {
		t.Fatal("updates given as a string parsed")
	}
}

func TestRefuseOversizedCommandAtTheLimit(t *testing.T) {
	at := opMsgOf(t, 7, 0, bson.D{{Key: "update", Value: "c"}}, "updates", updateStatements(maxStatementsPerCommand))
	if refuseOversizedCommand(at) != nil {
		t.Fatalf("an update of %d statements was refused", maxStatementsPerCommand)
	}
	over := opMsgOf(t, 7, 0, bson.D{{Key: "update", Value: "c"}}, "updates", updateStatements(maxStatementsPerCommand+1))
	reply := refuseOversizedCommand(over)
	if reply == nil {
		t.Fatalf("an update of %d statements was let through", maxStatementsPerCommand+1)
	}
	expectRefusal(t, reply, 7, maxStatementsPerCommand+1)
}

// expectRefusal checks reply is a well-formed OP_MSG answering requestID with BadValue naming the limit.
func expectRefusal(t *testing.T, reply []byte, requestID uint32, statements int) {
	t.Helper()
	if got := int(binary.LittleEndian.Uint32(reply[0:4])); got != len(reply) {
		t.Fatalf("reply length field %d, reply has %d bytes", got, len(reply))
	}
	if got := binary.LittleEndian.Uint32(reply[8:12]); got != requestID {
		t.Fatalf("reply answers request %d, want %d", got, requestID)
	}
	if opCode(reply) != opMsg || reply[20] != 0 {
		t.Fatal("reply is not an OP_MSG with a body section")
	}
	var body struct {
		OK       float64 `bson:"ok"`
		Errmsg   string  `bson:"errmsg"`
		Code     int32   `bson:"code"`
		CodeName string  `bson:"codeName"`
	}
	if err := bson.Unmarshal(reply[21:], &body); err != nil {
		t.Fatal(err)
	}
	if body.OK != 0 || body.Code != badValueCode || body.CodeName != "BadValue" {
		t.Fatalf("reply %+v, want ok 0, code 2 BadValue", body)
	}
	for _, part := range []string{"at most " + strconv.Itoa(maxStatementsPerCommand) + " statements", "update command with " + strconv.Itoa(statements) + " statements"} {
		if !strings.Contains(body.Errmsg, part) {
			t.Fatalf("errmsg %q does not say %q", body.Errmsg, part)
		}
	}
}

// The relay answers an oversized command itself, never forwards it, and keeps serving the connection.
func TestRelayRefusesAnOversizedUpdateAndServesTheNextCommand(t *testing.T) {
	clientSide, proxyFront := net.Pipe()
	proxyBack, backendSide := net.Pipe()
	defer clientSide.Close()
	defer backendSide.Close()
	locks := NewWriteLocks(true)
	go func() { _ = relay(proxyFront, proxyBack, locks, nil, nil) }()
	deadline := time.Now().Add(5 * time.Second)
	for _, conn := range []net.Conn{clientSide, backendSide} {
		if err := conn.SetDeadline(deadline); err != nil {
			t.Fatal(err)
		}
	}

	oversized := opMsgOf(t, 11, 0, bson.D{{Key: "update", Value: "c"}, {Key: "$db", Value: "d"}}, "updates", updateStatements(150))
	if _, err := clientSide.Write(oversized); err != nil {
		t.Fatal(err)
	}
	reply, err := readMessage(clientSide)
	if err != nil {
		t.Fatal(err)
	}
	expectRefusal(t, reply, 11, 150)

	small := opMsgOf(t, 12, 0, bson.D{{Key: "update", Value: "c"}, {Key: "$db", Value: "d"}}, "updates", updateStatements(2))
	go func() { _, _ = clientSide.Write(small) }()
	forwarded, err := readMessage(backendSide)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(forwarded[4:8]) != 12 {
		t.Fatal("the backend's first request is not the small update: the refused one reached it")
	}
	if locks.all.TryLock() {
		t.Fatal("the write locks are free while a write is at the backend")
	}
}

func TestDescribeNamesCommandNamespaceAndStatements(t *testing.T) {
	documents := []bson.D{{{Key: "_id", Value: "a"}}, {{Key: "_id", Value: "b"}}, {{Key: "_id", Value: "c"}}}
	msg := opMsgOf(t, 7, 0, bson.D{{Key: "insert", Value: "messages"}, {Key: "$db", Value: "chat_messages"}}, "documents", documents)
	command, namespace, statements := describe(msg)
	if command != "insert" || namespace != "chat_messages.messages" || statements != 3 {
		t.Fatalf("describe = %q %q %d, want insert chat_messages.messages 3", command, namespace, statements)
	}
	stats := NewStats()
	stats.record(msg, true, 2*time.Millisecond)
	var report strings.Builder
	stats.Report(&report, time.Second)
	if !strings.Contains(report.String(), "chat_messages.messages") || !strings.Contains(report.String(), "write lock held 0% of the time in all, 0% by the busiest database chat_messages") {
		t.Fatalf("report lacks the namespace or the lock share:\n%s", report.String())
	}
}
