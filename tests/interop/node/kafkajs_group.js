// kafkajs 2.2 consumer group (classic protocol): a consumer reads 20 records of a 2-partition
// topic and commits; after it disconnects, 10 more are produced and a new consumer of the same
// group reads exactly those 10 (resumed from the committed offsets); admin fetchOffsets,
// describeGroups, listGroups and deleteGroups see the group.
// usage: node kafkajs_group.js BOOTSTRAP. Prints "ok   - ..."/"FAIL - ..." lines, then "done".
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const bootstrap = process.argv[2];
let failures = 0;
function check(cond, what) {
  console.log((cond ? 'ok   - ' : 'FAIL - ') + what);
  if (!cond) failures++;
}

async function consume(kafka, topic, groupId, want) {
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, rebalanceTimeout: 20000 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got = [];
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(), 40000);
    consumer.run({
      eachMessage: async ({ message }) => {
        got.push(message.value.toString());
        if (got.length >= want) { clearTimeout(timer); resolve(); }
      },
    }).catch(reject);
  });
  await consumer.disconnect(); // commits the consumed offsets and leaves the group
  return got.sort();
}

async function produce(kafka, topic, from, count) {
  const producer = kafka.producer();
  await producer.connect();
  const messages = [];
  for (let i = from; i < from + count; i++) messages.push({ partition: i % 2, value: `m${i}` });
  await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
}

async function main() {
  const kafka = new Kafka({ clientId: 'gregor-kjs-group', brokers: [bootstrap], logLevel: logLevel.ERROR,
                            retry: { retries: 8 }, requestTimeout: 30000 });
  const admin = kafka.admin();
  await admin.connect();
  const topic = 'kjg-' + Math.random().toString(16).slice(2, 10);
  const groupId = topic + '-g';
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] });
  await produce(kafka, topic, 0, 20);
  const first = await consume(kafka, topic, groupId, 20);
  check(first.length === 20, `first consumer read ${first.length} of 20 records`);
  const offs = await admin.fetchOffsets({ groupId, topics: [topic] });
  const parts = offs[0].partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset);
  check(JSON.stringify(parts) === '["10","10"]', `fetchOffsets after the first consumer: ${JSON.stringify(parts)}`);
  await produce(kafka, topic, 20, 10);
  const second = await consume(kafka, topic, groupId, 10);
  const want = Array.from({ length: 10 }, (_, i) => `m${20 + i}`).sort();
  check(JSON.stringify(second) === JSON.stringify(want),
    `second consumer resumed at the committed offsets: ${second.length} records, ${second[0]}..`);
  const d = await admin.describeGroups([groupId]);
  check(d.groups[0].state === 'Empty' && d.groups[0].protocolType === 'consumer',
    `describeGroups: ${d.groups[0].state} ${d.groups[0].protocolType}`);
  const l = await admin.listGroups();
  check(l.groups.some((g) => g.groupId === groupId && g.protocolType === 'consumer'), 'listGroups has the group');
  await admin.deleteGroups([groupId]);
  const l2 = await admin.listGroups();
  check(!l2.groups.some((g) => g.groupId === groupId), 'deleteGroups removed it');
  await admin.disconnect();
  console.log('done');
  process.exit(failures ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(2); });
