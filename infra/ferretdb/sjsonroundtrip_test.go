package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// everyTypeDocument holds each BSON type FerretDB v1 stores (double, string, object, array, binary,
// objectId, bool, date, null, regex, int32, timestamp, int64), with the values its stored JSON text
// treats apart (FerretDB v1 rejects an array directly in an array): doubles written in exponent form or as -0, strings with each character class
// encoding/json escapes, empty and nested containers, binary subtypes, and keys that need escaping.
// Not -0: FerretDB v1 stores it as 0 (upstream's behaviour, the same in every build).
func everyTypeDocument(id string) bson.D {
	uuid := bytes.Repeat([]byte{0xab}, 16)
	return bson.D{
		{Key: "_id", Value: id},
		{Key: "double", Value: 3.25},
		{Key: "doubleWhole", Value: float64(1_700_000_000_123)},
		{Key: "doubleTiny", Value: 1.5e-7},
		{Key: "doubleHuge", Value: 1e21},
		{Key: "doubleMax", Value: math.MaxFloat64},
		{Key: "doubleSmallest", Value: 5e-324},
		{Key: "string", Value: "plain text"},
		{Key: "stringEscapes", Value: "quote \" backslash \\ slash / <b>&amp; \n\t\r\b\f \x01\x1f \u2028\u2029"},
		{Key: "stringUnicode", Value: "é 中 😀 \ufffd"},
		{Key: "stringEmpty", Value: ""},
		{Key: "object", Value: bson.D{
			{Key: "a", Value: int32(1)},
			{Key: "<k&\"é\">", Value: "escaped key"},
			{Key: "nested", Value: bson.D{{Key: "deep", Value: bson.A{int32(1), "two", bson.D{}, bson.D{{Key: "list", Value: bson.A{}}}}}}},
		}},
		{Key: "objectEmpty", Value: bson.D{}},
		{Key: "array", Value: bson.A{1.5, "s", int32(2), int64(3), true, nil, bson.D{{Key: "inner", Value: bson.A{int32(9)}}}, bson.D{{Key: "k", Value: "v"}}}},
		{Key: "arrayEmpty", Value: bson.A{}},
		{Key: "binary", Value: primitive.Binary{Subtype: 0x00, Data: []byte{0, 1, 2, 0xfe, 0xff}}},
		{Key: "binaryUUID", Value: primitive.Binary{Subtype: 0x04, Data: uuid}},
		{Key: "binaryUser", Value: primitive.Binary{Subtype: 0x80, Data: []byte("x")}},
		{Key: "objectId", Value: primitive.ObjectID{0x65, 0x5f, 0x00, 0x01, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x11}},
		{Key: "true", Value: true},
		{Key: "false", Value: false},
		{Key: "date", Value: primitive.DateTime(1_700_000_000_123)},
		{Key: "dateBefore1970", Value: primitive.DateTime(-1)},
		{Key: "null", Value: nil},
		{Key: "regex", Value: primitive.Regex{Pattern: `^a.*"<b>\d$`, Options: "im"}},
		{Key: "int32", Value: int32(math.MinInt32)},
		{Key: "int32Max", Value: int32(math.MaxInt32)},
		{Key: "int64", Value: int64(9_007_199_254_740_993)},
		{Key: "int64Min", Value: int64(math.MinInt64)},
		{Key: "timestamp", Value: primitive.Timestamp{T: 1_700_000_000, I: 7}},
		{Key: "key <&> é", Value: "a top-level key with characters JSON escapes"},
	}
}

// everyTypeStored is the text FerretDB v1.24 stores for everyTypeDocument("every-type") (upstream's
// sjson, read from a data directory of the unpatched build): every build must write exactly it, and
// read it back as the same document.
const everyTypeStored = `{"$s":{"p":{"_id":{"t":"string"},"double":{"t":"double"},"doubleWhole":{"t":"double"},"doubleTiny":{"t":"double"},"doubleHuge":{"t":"double"},"doubleMax":{"t":"double"},"doubleSmallest":{"t":"double"},"string":{"t":"string"},"stringEscapes":{"t":"string"},"stringUnicode":{"t":"string"},"stringEmpty":{"t":"string"},"object":{"t":"object","$s":{"p":{"a":{"t":"int"},"\u003ck\u0026\"é\"\u003e":{"t":"string"},"nested":{"t":"object","$s":{"p":{"deep":{"t":"array","i":[{"t":"int"},{"t":"string"},{"t":"object","$s":{}},{"t":"object","$s":{"p":{"list":{"t":"array","i":[]}},"$k":["list"]}}]}},"$k":["deep"]}}},"$k":["a","\u003ck\u0026\"é\"\u003e","nested"]}},"objectEmpty":{"t":"object","$s":{}},"array":{"t":"array","i":[{"t":"double"},{"t":"string"},{"t":"int"},{"t":"long"},{"t":"bool"},{"t":"null"},{"t":"object","$s":{"p":{"inner":{"t":"array","i":[{"t":"int"}]}},"$k":["inner"]}},{"t":"object","$s":{"p":{"k":{"t":"string"}},"$k":["k"]}}]},"arrayEmpty":{"t":"array","i":[]},"binary":{"t":"binData","s":0},"binaryUUID":{"t":"binData","s":4},"binaryUser":{"t":"binData","s":128},"objectId":{"t":"objectId"},"true":{"t":"bool"},"false":{"t":"bool"},"date":{"t":"date"},"dateBefore1970":{"t":"date"},"null":{"t":"null"},"regex":{"t":"regex","o":"im"},"int32":{"t":"int"},"int32Max":{"t":"int"},"int64":{"t":"long"},"int64Min":{"t":"long"},"timestamp":{"t":"timestamp"},"key \u003c\u0026\u003e é":{"t":"string"}},"$k":["_id","double","doubleWhole","doubleTiny","doubleHuge","doubleMax","doubleSmallest","string","stringEscapes","stringUnicode","stringEmpty","object","objectEmpty","array","arrayEmpty","binary","binaryUUID","binaryUser","objectId","true","false","date","dateBefore1970","null","regex","int32","int32Max","int64","int64Min","timestamp","key \u003c\u0026\u003e é"]},"_id":"every-type","double":3.25,"doubleWhole":1700000000123,"doubleTiny":1.5e-7,"doubleHuge":1e+21,"doubleMax":1.7976931348623157e+308,"doubleSmallest":5e-324,"string":"plain text","stringEscapes":"quote \" backslash \\ slash / \u003cb\u003e\u0026amp; \n\t\r\b\f \u0001\u001f \u2028\u2029","stringUnicode":"é 中 😀 �","stringEmpty":"","object":{"a":1,"\u003ck\u0026\"é\"\u003e":"escaped key","nested":{"deep":[1,"two",{},{"list":[]}]}},"objectEmpty":{},"array":[1.5,"s",2,3,true,null,{"inner":[9]},{"k":"v"}],"arrayEmpty":[],"binary":"AAEC/v8=","binaryUUID":"q6urq6urq6urq6urq6urqw==","binaryUser":"eA==","objectId":"655f0001aabbccddeeff0011","true":true,"false":false,"date":1700000000123,"dateBefore1970":-1,"null":null,"regex":"^a.*\"\u003cb\u003e\\d$","int32":-2147483648,"int32Max":2147483647,"int64":9007199254740993,"int64Min":-9223372036854775808,"timestamp":7301444403200000007,"key <&> é":"a top-level key with characters JSON escapes"}`

// Each type, inserted (one and many a command), replaced and updated through the whole runner, comes
// back byte for byte; the stored text is upstream's. Run with the build's go.mod to test the patched
// FerretDB (`go test -modfile=../../.infra/ferretdb/build/go.mod -run EveryBSONType`, ADR 0115).
func TestEveryBSONTypeRoundTripsByteIdentically(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	client := startRunnerIn(t, dir, false)
	coll := client.Database("roundtrip").Collection("docs")

	want := func(id string) bson.Raw {
		raw, err := bson.Marshal(everyTypeDocument(id))
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	findRaw := func(id string) bson.Raw {
		t.Helper()
		raw, err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	same := func(step, id string, got bson.Raw) {
		t.Helper()
		if !bytes.Equal(got, want(id)) {
			t.Fatalf("%s: the document read back differs\n got %s\nwant %s", step, got, want(id))
		}
	}

	if _, err := coll.InsertOne(ctx, everyTypeDocument("every-type")); err != nil {
		t.Fatal(err)
	}
	stored := storedText(t, filepath.Join(dir, "roundtrip.sqlite"), "docs", `"every-type"`)
	if stored != everyTypeStored {
		t.Fatalf("the stored text differs from upstream's\n got %s\nwant %s", stored, everyTypeStored)
	}
	same("insertOne, findOne", "every-type", findRaw("every-type"))

	ids := []string{"many-1", "many-2", "many-3"}
	many := make([]any, len(ids))
	for i, id := range ids {
		many[i] = everyTypeDocument(id)
	}
	if _, err := coll.InsertMany(ctx, many); err != nil {
		t.Fatal(err)
	}
	cursor, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for ; cursor.Next(ctx); read++ {
		same("insertMany, find $in", ids[read], cursor.Current)
	}
	if err = cursor.Err(); err != nil || read != len(ids) {
		t.Fatalf("find $in: %d documents, %v", read, err)
	}

	// A replace and an update read the stored document and write it again.
	if _, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "many-1"}}, everyTypeDocument("many-1")); err != nil {
		t.Fatal(err)
	}
	same("replaceOne", "many-1", findRaw("many-1"))
	if _, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "many-2"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "string", Value: "plain text"}}}}); err != nil {
		t.Fatal(err)
	}
	same("updateOne $set", "many-2", findRaw("many-2"))

}

// storedText reads the JSON text FerretDB stored for the document whose `_id` is the given JSON value.
func storedText(t *testing.T, path, collection, id string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var table string
	if err = db.QueryRow(`SELECT table_name FROM _ferretdb_collections WHERE name = ?`, collection).Scan(&table); err != nil {
		t.Fatal(err)
	}
	var text string
	q := fmt.Sprintf(`SELECT _ferretdb_sjson FROM %q WHERE _ferretdb_sjson->'$._id' = ?`, table)
	if err = db.QueryRow(q, id).Scan(&text); err != nil {
		t.Fatal(err)
	}
	return text
}
