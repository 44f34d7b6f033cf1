import { MongoClient } from 'mongodb';
const c = new MongoClient('mongodb://127.0.0.1:27417/');
await c.connect();
const db = c.db(process.argv[2]);
for (const d of await db.collection('conversation_history').find({}).toArray()) {
  if (!String(d._id).includes('g1')) continue;
  const entries = JSON.parse(d.entries);
  console.log(d._id, entries.length, new Date(entries[0].t * 1000).toISOString(), new Date(entries.at(-1).t * 1000).toISOString(), entries[0].i, entries.at(-1).i);
}
await c.close();
