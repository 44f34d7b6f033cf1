package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// With one writing connection a database (ADR 0164; our FerretDB build's patches/0006, so run with
// `go test -modfile=../../.infra/ferretdb/build/go.mod` to test the patch), no write may wait forever
// for that connection: every kind of write FerretDB issues — single-statement and batched inserts,
// updates, findAndModify, deletes, a collection created by its first insert, createCollection, drop,
// createIndexes, dropIndexes, dropDatabase — runs at once beside the others and beside reads that
// keep a cursor open across the writes, behind the runner's store-wide lock and with no lock at all
// (FerretDB alone, writes of one database then overlapping in the backend). Every command has a
// deadline, so a deadlock fails the test instead of hanging it; the counts show nothing was lost. The
// reading connections are opened query-only, so a write that reached one of them would fail.
func TestOneWriterConnectionNeverWaitsForever(t *testing.T) {
	for _, serialize := range []bool{true, false} {
		t.Run(fmt.Sprintf("serialize writes %t", serialize), func(t *testing.T) {
			client := startRunnerWith(t, config{sqliteDir: t.TempDir(), synchronous: "normal", serializeWrites: serialize,
				pragmas: writerQuery + "&_reader_pragma=cache_size(-2000)&_reader_pragma=query_only(1)"})
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			db := client.Database("chat_w")
			log, counters := db.Collection("log"), db.Collection("counters")
			seed := make([]any, 3_000)
			for i := range seed {
				seed[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("s%05d", i)}, {Key: "n", Value: int32(i)}}
			}
			if _, err := log.InsertMany(ctx, seed); err != nil {
				t.Fatal(err)
			}

			const rounds = 15
			var wg sync.WaitGroup
			run := func(what string, f func(i int) error) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range rounds {
						if err := f(i); err != nil {
							t.Errorf("%s %d: %v", what, i, err)
							return
						}
					}
				}()
			}
			// Reads that hold a cursor open (a read transaction on a reading connection) while writes commit.
			run("open cursor", func(int) error {
				cursor, err := log.Find(ctx, bson.D{}, options.Find().SetBatchSize(50))
				if err != nil {
					return err
				}
				defer cursor.Close(ctx)
				seen := 0
				for cursor.Next(ctx) {
					if seen++; seen == 60 {
						time.Sleep(20 * time.Millisecond)
					}
				}
				if seen < len(seed) {
					return fmt.Errorf("the cursor read %d of at least %d documents", seen, len(seed))
				}
				return cursor.Err()
			})
			run("batched insert", func(i int) error {
				docs := make([]any, 500) // more than one INSERT statement: a transaction
				for j := range docs {
					docs[j] = bson.D{{Key: "_id", Value: fmt.Sprintf("b%d-%d", i, j)}}
				}
				_, err := log.InsertMany(ctx, docs)
				return err
			})
			run("insert, then delete", func(i int) error {
				if _, err := log.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("i%d", i)}}); err != nil {
					return err
				}
				r, err := log.DeleteMany(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("i%d", i)}})
				if err == nil && r.DeletedCount != 1 {
					err = fmt.Errorf("deleted %d", r.DeletedCount)
				}
				return err
			})
			run("update", func(int) error {
				_, err := counters.UpdateOne(ctx, bson.D{{Key: "_id", Value: "inc"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(1)}}}}, options.Update().SetUpsert(true))
				return err
			})
			run("findAndModify", func(int) error {
				return counters.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "seq"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(1)}}}},
					options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Err()
			})
			run("new collection by its first insert, then dropped", func(i int) error {
				c := db.Collection(fmt.Sprintf("implicit_%d", i))
				if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
					return err
				}
				return c.Drop(ctx)
			})
			run("createCollection, indexes, drop", func(i int) error {
				name := fmt.Sprintf("explicit_%d", i)
				if err := db.CreateCollection(ctx, name); err != nil {
					return err
				}
				c := db.Collection(name)
				index, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}})
				if err != nil {
					return err
				}
				if _, err = c.Indexes().DropOne(ctx, index); err != nil {
					return err
				}
				return c.Drop(ctx)
			})
			run("index on the busy collection", func(i int) error {
				index, err := log.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "n", Value: 1}}, Options: options.Index().SetName(fmt.Sprintf("n_%d", i))})
				if err != nil {
					return err
				}
				_, err = log.Indexes().DropOne(ctx, index)
				return err
			})
			run("stats", func(int) error {
				return db.RunCommand(ctx, bson.D{{Key: "collStats", Value: "log"}}).Err()
			})
			run("another database, dropped", func(i int) error {
				other := client.Database(fmt.Sprintf("chat_w_other_%d", i))
				if _, err := other.Collection("x").InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
					return err
				}
				return other.Drop(ctx)
			})
			wg.Wait()
			if ctx.Err() != nil {
				t.Fatal("the writes did not finish within 90 s")
			}

			for id, want := range map[string]int32{"inc": rounds, "seq": rounds} {
				var doc struct{ N int32 }
				if err := counters.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&doc); err != nil || doc.N != want {
					t.Errorf("counter %s = %d, %v; want %d", id, doc.N, err, want)
				}
			}
			if n, err := log.CountDocuments(ctx, bson.D{}); err != nil || n != int64(len(seed)+rounds*500) {
				t.Errorf("log holds %d documents, %v; want %d", n, err, len(seed)+rounds*500)
			}
		})
	}
}
