package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// startRunner runs the whole runner (FerretDB behind the wire proxy) on a scratch directory and
// returns a connected client; both stop when the test ends.
func startRunner(t *testing.T, lockPerDatabase bool) *mongo.Client {
	t.Helper()
	return startRunnerIn(t, t.TempDir(), lockPerDatabase)
}

// startRunnerIn is startRunner on the given data directory.
func startRunnerIn(t *testing.T, sqliteDir string, lockPerDatabase bool) *mongo.Client {
	t.Helper()
	return startRunnerWith(t, config{sqliteDir: sqliteDir, synchronous: "normal", serializeWrites: true, lockPerDatabase: lockPerDatabase})
}

// startRunnerWith is startRunner with the given configuration, on a free port of its own.
func startRunnerWith(t *testing.T, cfg config) *mongo.Client {
	t.Helper()
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cfg.listenAddr = addr
	go func() { done <- run(ctx, cfg) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	client, err := mongo.Connect(context.Background(), options.Client().ApplyURI("mongodb://"+addr+"/").SetMaxPoolSize(200))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	deadline := time.Now().Add(30 * time.Second)
	for client.Ping(context.Background(), nil) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the runner did not answer within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return client
}

// The whole runner on real FerretDB, in both lock modes: while a long write runs in one database and
// another database is written, concurrent writes to one document keep MongoDB's guarantees ($inc loses
// nothing, findAndModify hands out each value once, a guarded update wins once, a duplicate _id fails
// with 11000). That writes to two databases overlap with a lock per database is wireproxy's test.
func TestWriteLockModes(t *testing.T) {
	for _, perDatabase := range []bool{true, false} {
		t.Run(fmt.Sprintf("per database %t", perDatabase), func(t *testing.T) {
			ctx := context.Background()
			client := startRunner(t, perDatabase)
			a, b := client.Database("chat_a"), client.Database("chat_b")
			for _, c := range []*mongo.Collection{a.Collection("bulk"), a.Collection("docs"), b.Collection("notes")} {
				if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "warm"}}); err != nil {
					t.Fatal(err)
				}
			}

			body := strings.Repeat("x", 200)
			bulk := make([]any, 20_000)
			for i := range bulk {
				bulk[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("b%d", i)}, {Key: "body", Value: body}}
			}
			// A long write to database a runs beside everything below (a second database, in per-database
			// mode, is written at the same time: FerretDB must neither fail nor deadlock on it).
			bulkDone := make(chan error, 1)
			go func() {
				_, err := a.Collection("bulk").InsertMany(ctx, bulk)
				bulkDone <- err
			}()

			const racers = 40
			var wg sync.WaitGroup
			var mu sync.Mutex
			var sequence []int32
			var guardedWins, inserted int
			var duplicateCodes []int
			counters, docs := a.Collection("counters"), a.Collection("docs")
			if _, err := docs.InsertOne(ctx, bson.D{{Key: "_id", Value: "g"}, {Key: "_rev", Value: int32(0)}}); err != nil {
				t.Fatal(err)
			}
			for i := range racers {
				wg.Add(5)
				go func() {
					defer wg.Done()
					if _, err := b.Collection("notes").InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("r%d", i)}}); err != nil {
						t.Error(err)
					}
				}()
				go func() {
					defer wg.Done()
					_, err := counters.UpdateOne(ctx, bson.D{{Key: "_id", Value: "shared"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(1)}}}}, options.Update().SetUpsert(true))
					if err != nil {
						t.Error(err)
					}
				}()
				go func() {
					defer wg.Done()
					var doc struct{ N int32 }
					err := counters.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "seq"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(1)}}}},
						options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&doc)
					if err != nil {
						t.Error(err)
					}
					mu.Lock()
					sequence = append(sequence, doc.N)
					mu.Unlock()
				}()
				go func() {
					defer wg.Done()
					r, err := docs.UpdateOne(ctx, bson.D{{Key: "_id", Value: "g"}, {Key: "_rev", Value: int32(0)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "_rev", Value: int32(1)}}}})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					guardedWins += int(r.ModifiedCount)
					mu.Unlock()
				}()
				go func() {
					defer wg.Done()
					_, err := docs.InsertOne(ctx, bson.D{{Key: "_id", Value: "dup"}})
					mu.Lock()
					defer mu.Unlock()
					var we mongo.WriteException
					switch {
					case err == nil:
						inserted++
					case errors.As(err, &we) && len(we.WriteErrors) == 1:
						duplicateCodes = append(duplicateCodes, we.WriteErrors[0].Code)
					default:
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			if err := <-bulkDone; err != nil {
				t.Fatal(err)
			}
			if n, err := a.Collection("bulk").CountDocuments(ctx, bson.D{}); err != nil || n != int64(len(bulk)+1) {
				t.Errorf("database a's long write left %d documents (%v), want %d", n, err, len(bulk)+1)
			}
			if n, err := b.Collection("notes").CountDocuments(ctx, bson.D{}); err != nil || n != racers+1 {
				t.Errorf("database b holds %d notes (%v), want %d", n, err, racers+1)
			}

			var shared struct{ N int32 }
			if err := counters.FindOne(ctx, bson.D{{Key: "_id", Value: "shared"}}).Decode(&shared); err != nil {
				t.Fatal(err)
			}
			if shared.N != racers {
				t.Errorf("%d concurrent $inc left n = %d", racers, shared.N)
			}
			sort.Slice(sequence, func(i, j int) bool { return sequence[i] < sequence[j] })
			for i, n := range sequence {
				if n != int32(i+1) {
					t.Fatalf("findAndModify $inc handed out %v, not 1..%d once each", sequence, racers)
				}
			}
			if guardedWins != 1 {
				t.Errorf("%d guarded updates of one revision succeeded, want 1", guardedWins)
			}
			if inserted != 1 || len(duplicateCodes) != racers-1 {
				t.Errorf("%d inserts of one _id succeeded and %d failed, want 1 and %d", inserted, len(duplicateCodes), racers-1)
			}
			for _, code := range duplicateCodes {
				if code != 11000 {
					t.Errorf("a duplicate insert failed with code %d, want 11000", code)
				}
			}
		})
	}
}
