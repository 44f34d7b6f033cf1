// Package wireproxy is the MongoDB wire-protocol proxy in front of FerretDB: it lets one write
// command at a time through (ADR 0005) and refuses commands FerretDB would hang on (ADR 0011).
package wireproxy

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// FerretDB v1 runs every update as "query, modify in Go, write back" without a transaction, so two
// concurrent $inc on one document lose increments, two upserts of one _id collide with E11000, and
// a version-guarded update can succeed twice. MongoDB guarantees single-document atomicity and the
// services rely on it, so the proxy below lets only one write command at a time reach FerretDB, or,
// with a lock per database (ADR 0046), each database: FerretDB keeps each database in a SQLite file
// and connection pool of its own, so writes to two databases never touch one document. Reads stay
// concurrent: SQLite writes each document atomically, so a reader sees before or after.

const (
	opMsg          = 2013
	maxMessageSize = 48 << 20 // MongoDB's maxMessageSizeBytes
	flagMoreToCome = 1 << 1
	// The checksum flag appends a CRC-32C after the last section.
	flagChecksumPresent = 1 << 0
)

// Commands that never modify data. Everything else, including anything we cannot parse, is a write.
var nonWriteCommands = map[string]bool{
	"find": true, "getMore": true, "killCursors": true, "aggregate": true, "count": true, "distinct": true,
	"explain": true, "listCollections": true, "listDatabases": true, "listIndexes": true,
	"collStats": true, "dbStats": true, "dataSize": true, "serverStatus": true,
	"hello": true, "isMaster": true, "ismaster": true, "ping": true, "buildInfo": true, "buildinfo": true,
	"getParameter": true, "getCmdLineOpts": true, "hostInfo": true, "connectionStatus": true, "whatsmyuri": true,
	"saslStart": true, "saslContinue": true, "endSessions": true, "getLog": true,
}

// Serve accepts client connections on front and pairs each with its own connection to
// FerretDB's Unix socket, so cursors and other per-connection state behave as with a direct connection.
// stats, when not nil, tallies every forwarded command.
// locks decides which writes may run at once.
// slow, when not nil, logs the commands that waited or ran past its threshold.
func Serve(ctx context.Context, front net.Listener, backendSocket string, locks *WriteLocks, stats *Stats, slow *SlowLog) error {
	var conns sync.WaitGroup
	defer conns.Wait()

	go func() {
		<-ctx.Done()
		front.Close()
	}()

	for {
		client, err := front.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			defer client.Close()
			backend, err := net.Dial("unix", backendSocket)
			if err != nil {
				return
			}
			defer backend.Close()
			// Closing both ends unblocks the reads of a connection that is idle at shutdown.
			stop := context.AfterFunc(ctx, func() { client.Close(); backend.Close() })
			defer stop()
			_ = relay(client, backend, locks, stats, slow)
		}()
	}
}

// relay forwards request/response exchanges one at a time; MongoDB clients never pipeline
// requests on one connection, so this matches the protocol.
func relay(client, backend net.Conn, locks *WriteLocks, stats *Stats, slow *SlowLog) error {
	timed := stats != nil || slow != nil
	for {
		req, err := readMessage(client)
		if err != nil {
			return err
		}
		if refusal := refuseOversizedCommand(req); refusal != nil {
			if moreToCome(req) {
				continue // an unacknowledged write expects no reply; dropping it beats hanging every writer
			}
			if _, err := client.Write(refusal); err != nil {
				return err
			}
			continue
		}
		write := isWrite(req)
		var arrived, started time.Time
		if timed {
			arrived = time.Now()
		}
		var unlock func()
		if write {
			unlock = locks.Lock(commandDatabase(req))
		}
		if timed {
			started = time.Now()
		}
		err = exchange(client, backend, req)
		if timed {
			took := time.Since(started)
			stats.record(req, write, took)
			slow.record(req, write, arrived, started.Sub(arrived), took)
		}
		if write {
			unlock()
		}
		if err != nil {
			return err
		}
	}
}

func exchange(client, backend net.Conn, req []byte) error {
	if _, err := backend.Write(req); err != nil {
		return err
	}
	if moreToCome(req) {
		return nil // fire-and-forget request: the server sends no reply
	}
	for {
		resp, err := readMessage(backend)
		if err != nil {
			return err
		}
		if _, err = client.Write(resp); err != nil {
			return err
		}
		if !moreToCome(resp) {
			return nil
		}
	}
}

func readMessage(r io.Reader) ([]byte, error) {
	var header [16]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		return nil, err
	}
	size := int32(binary.LittleEndian.Uint32(header[:4]))
	if size < 16 || size > maxMessageSize {
		return nil, fmt.Errorf("invalid message length %d", size)
	}
	msg := make([]byte, size)
	copy(msg, header[:])
	if _, err := io.ReadFull(r, msg[16:]); err != nil {
		return nil, err
	}
	return msg, nil
}

func requestID(msg []byte) uint32 { return binary.LittleEndian.Uint32(msg[4:8]) }

func moreToCome(msg []byte) bool {
	return opCode(msg) == opMsg && len(msg) >= 20 && binary.LittleEndian.Uint32(msg[16:20])&flagMoreToCome != 0
}

func opCode(msg []byte) int32 { return int32(binary.LittleEndian.Uint32(msg[12:16])) }

func isWrite(msg []byte) bool {
	name, err := commandName(msg)
	return err != nil || !nonWriteCommands[name]
}

// commandName returns the first key of an OP_MSG's body section (kind 0), which names the command.
func commandName(msg []byte) (string, error) {
	body, _, err := splitSections(msg)
	if err != nil {
		return "", err
	}
	return firstKey(body)
}

// firstKey returns the first key of a BSON document: int32 length, then elements of (type byte,
// cstring key, value).
func firstKey(doc []byte) (string, error) {
	end := bytes.IndexByte(doc[5:], 0)
	if doc[4] == 0 || end < 0 {
		return "", errors.New("empty command document")
	}
	return string(doc[5 : 5+end]), nil
}

// splitSections returns an OP_MSG's body (the kind-0 section's BSON document) and its document
// sequences (kind 1), each keyed by its identifier and holding its documents back to back.
func splitSections(msg []byte) (body []byte, sequences map[string][]byte, err error) {
	if opCode(msg) != opMsg || len(msg) < 21 {
		return nil, nil, errors.New("not an OP_MSG")
	}
	sections := msg[20:]
	if binary.LittleEndian.Uint32(msg[16:20])&flagChecksumPresent != 0 {
		sections = sections[:len(sections)-4]
	}
	for len(sections) > 0 {
		kind := sections[0]
		sections = sections[1:]
		if len(sections) < 4 {
			return nil, nil, errors.New("truncated section")
		}
		size := int(binary.LittleEndian.Uint32(sections[:4]))
		if size < 5 || size > len(sections) {
			return nil, nil, errors.New("invalid section size")
		}
		switch kind {
		case 0:
			body = sections[:size]
		case 1: // int32 size (including itself), cstring identifier, documents
			end := bytes.IndexByte(sections[4:size], 0)
			if end < 0 {
				return nil, nil, errors.New("invalid document sequence identifier")
			}
			if sequences == nil {
				sequences = map[string][]byte{}
			}
			sequences[string(sections[4:4+end])] = sections[4+end+1 : size]
		default:
			return nil, nil, fmt.Errorf("unknown section kind %d", kind)
		}
		sections = sections[size:]
	}
	if body == nil {
		return nil, nil, errors.New("no body section")
	}
	return body, sequences, nil
}
