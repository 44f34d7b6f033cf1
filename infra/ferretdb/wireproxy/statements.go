package wireproxy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// FerretDB v1 runs an update command's statements one after another and keeps each statement's
// query open, holding one pooled SQLite connection, until the whole command ends (its handler
// defers the close inside the statement loop). The pool has 100 connections, so a command of 100
// statements waits forever for a 101st while the proxy's write lock is held: every later write of
// every service waits behind it. The proxy therefore refuses such a command at once with an error
// reply. The limit leaves a third of the pool to the reads and open cursors running beside it;
// clients split bigger batches (@chat/mongo's bulkWriteChunked sends at most 50 per command).
const maxStatementsPerCommand = 64

// statementFields names, for each command FerretDB runs statement by statement with a connection
// held per statement, the field (or document sequence) holding the statements. Inserts are not
// here: FerretDB writes a command's documents in batches, whatever their number.
var statementFields = map[string]string{"update": "updates"}

// MongoDB's BadValue: the command is well-formed but asks for more than this server does.
const (
	badValueCode     = 2
	badValueCodeName = "BadValue"
)

// refuseOversizedCommand returns the error reply to send instead of forwarding req, or nil when
// req may go to FerretDB. Anything it cannot parse goes through: FerretDB answers that itself.
func refuseOversizedCommand(req []byte) []byte {
	command, count, err := statementCount(req)
	if err != nil || count <= maxStatementsPerCommand {
		return nil
	}
	errmsg := fmt.Sprintf("%s command with %d statements refused: this FerretDB runner accepts at most %d "+
		"statements per %s command (more would exhaust FerretDB's connection pool and hang every write); "+
		"split the batch into several commands", command, count, maxStatementsPerCommand, command)
	return errorReply(requestID(req), badValueCode, badValueCodeName, errmsg)
}

// statementCount returns the command's name and, for a command in statementFields, how many
// statements it carries: the elements of the body's array field plus the documents of the
// document sequence of that name (drivers send large batches as a sequence). Other commands count 0.
func statementCount(msg []byte) (command string, count int, err error) {
	body, sequences, err := splitSections(msg)
	if err != nil {
		return "", 0, err
	}
	if command, err = firstKey(body); err != nil {
		return "", 0, err
	}
	field, ok := statementFields[command]
	if !ok {
		return command, 0, nil
	}
	err = eachElement(body, func(kind byte, key string, value []byte) error {
		if key != field {
			return nil
		}
		if kind != bsonArray {
			return fmt.Errorf("%s.%s is not an array", command, key)
		}
		return eachElement(value, func(byte, string, []byte) error {
			count++
			return nil
		})
	})
	if err != nil {
		return "", 0, err
	}
	for documents := sequences[field]; len(documents) > 0; count++ {
		size, err := documentSize(documents)
		if err != nil {
			return "", 0, err
		}
		documents = documents[size:]
	}
	return command, count, nil
}

// BSON element types (bsonspec.org) whose value sizes eachElement must know to step over them.
const (
	bsonDouble     = 0x01
	bsonString     = 0x02
	bsonDocument   = 0x03
	bsonArray      = 0x04
	bsonBinary     = 0x05
	bsonUndefined  = 0x06
	bsonObjectID   = 0x07
	bsonBool       = 0x08
	bsonDateTime   = 0x09
	bsonNull       = 0x0a
	bsonRegex      = 0x0b
	bsonDBPointer  = 0x0c
	bsonJavaScript = 0x0d
	bsonSymbol     = 0x0e
	bsonCodeWScope = 0x0f
	bsonInt32      = 0x10
	bsonTimestamp  = 0x11
	bsonInt64      = 0x12
	bsonDecimal128 = 0x13
	bsonMinKey     = 0xff
	bsonMaxKey     = 0x7f
)

var errTruncated = errors.New("truncated BSON")

// documentSize reads the length prefix of the BSON document at the start of data and checks it fits.
func documentSize(data []byte) (int, error) {
	if len(data) < 5 {
		return 0, errTruncated
	}
	size := int(binary.LittleEndian.Uint32(data[:4]))
	if size < 5 || size > len(data) || data[size-1] != 0 {
		return 0, fmt.Errorf("invalid BSON document length %d", size)
	}
	return size, nil
}

// eachElement calls fn with the type, key and raw value of each top-level element of the BSON
// document doc, stopping at fn's first error.
func eachElement(doc []byte, fn func(kind byte, key string, value []byte) error) error {
	size, err := documentSize(doc)
	if err != nil {
		return err
	}
	rest := doc[4 : size-1]
	for len(rest) > 0 {
		kind := rest[0]
		end := bytes.IndexByte(rest[1:], 0)
		if end < 0 {
			return errTruncated
		}
		key := string(rest[1 : 1+end])
		rest = rest[1+end+1:]
		n, err := valueSize(kind, rest)
		if err != nil {
			return fmt.Errorf("element %q: %w", key, err)
		}
		if err := fn(kind, key, rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
	}
	return nil
}

// valueSize returns how many bytes at the start of data the value of a BSON element of that type takes.
func valueSize(kind byte, data []byte) (int, error) {
	fixed := func(n int) (int, error) {
		if n > len(data) {
			return 0, errTruncated
		}
		return n, nil
	}
	// An int32 length prefix, then that many bytes (plus extra ones the length does not count).
	prefixed := func(extra int) (int, error) {
		if len(data) < 4 {
			return 0, errTruncated
		}
		length := int(int32(binary.LittleEndian.Uint32(data[:4])))
		if length < 0 {
			return 0, errors.New("negative length")
		}
		return fixed(4 + extra + length)
	}
	cstring := func(from int) (int, error) {
		end := bytes.IndexByte(data[min(from, len(data)):], 0)
		if end < 0 {
			return 0, errTruncated
		}
		return from + end + 1, nil
	}

	switch kind {
	case bsonUndefined, bsonNull, bsonMinKey, bsonMaxKey:
		return 0, nil
	case bsonBool:
		return fixed(1)
	case bsonInt32:
		return fixed(4)
	case bsonDouble, bsonDateTime, bsonTimestamp, bsonInt64:
		return fixed(8)
	case bsonObjectID:
		return fixed(12)
	case bsonDecimal128:
		return fixed(16)
	case bsonString, bsonJavaScript, bsonSymbol:
		return prefixed(0)
	case bsonDocument, bsonArray:
		return documentSize(data)
	case bsonBinary:
		return prefixed(1) // the subtype byte
	case bsonCodeWScope:
		return prefixed(-4) // the length counts itself
	case bsonDBPointer:
		n, err := prefixed(0)
		if err != nil {
			return 0, err
		}
		return fixed(n + 12)
	case bsonRegex:
		pattern, err := cstring(0)
		if err != nil {
			return 0, err
		}
		return cstring(pattern)
	default:
		return 0, fmt.Errorf("unknown BSON type 0x%02x", kind)
	}
}

// errorReply builds an OP_MSG answering the request responseTo with a command error
// ({ok: 0, errmsg, code, codeName}), as MongoDB replies to a command it refuses.
func errorReply(responseTo uint32, code int32, codeName, errmsg string) []byte {
	var doc []byte
	doc = binary.LittleEndian.AppendUint32(doc, 0) // length, set below
	doc = appendElement(doc, bsonDouble, "ok", binary.LittleEndian.AppendUint64(nil, math.Float64bits(0)))
	doc = appendElement(doc, bsonString, "errmsg", bsonStringValue(errmsg))
	doc = appendElement(doc, bsonInt32, "code", binary.LittleEndian.AppendUint32(nil, uint32(code)))
	doc = appendElement(doc, bsonString, "codeName", bsonStringValue(codeName))
	doc = append(doc, 0)
	binary.LittleEndian.PutUint32(doc, uint32(len(doc)))

	msg := make([]byte, 16, 16+4+1+len(doc))
	binary.LittleEndian.PutUint32(msg[8:12], responseTo)
	binary.LittleEndian.PutUint32(msg[12:16], opMsg) // requestID (msg[4:8]) stays 0: nothing answers a reply
	msg = binary.LittleEndian.AppendUint32(msg, 0)   // flag bits
	msg = append(msg, 0)                             // section kind 0: the body
	msg = append(msg, doc...)
	binary.LittleEndian.PutUint32(msg[0:4], uint32(len(msg)))
	return msg
}

func appendElement(doc []byte, kind byte, key string, value []byte) []byte {
	doc = append(doc, kind)
	doc = append(doc, key...)
	doc = append(doc, 0)
	return append(doc, value...)
}

func bsonStringValue(s string) []byte {
	value := binary.LittleEndian.AppendUint32(nil, uint32(len(s)+1))
	value = append(value, s...)
	return append(value, 0)
}
