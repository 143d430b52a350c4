// kafkajs 2.2 transactional producer for tests/interop/test_txn_read_committed.sh: on a new
// 1-partition topic, transaction A (a1, a2) committed, B (b1, b2) aborted, C (c1) committed,
// and D (d1) left open when the program exits (transactionTimeout 8 s: the coordinator
// aborts it later). Offsets: a 0-1, COMMIT 2, b 3-4, ABORT 5, c 6, COMMIT 7, d 8.
// usage: node txn_scenario.js BOOTSTRAP TOPIC. Prints "ok   - ..."/"FAIL - ..." lines, then "done".
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, topic] = process.argv.slice(2);
let failures = 0;
function check(cond, what) {
  console.log((cond ? 'ok   - ' : 'FAIL - ') + what);
  if (!cond) failures++;
}

async function txn(producer, values, end) {
  const t = await producer.transaction();
  const res = await t.send({ topic, messages: values.map((v) => ({ value: v })) });
  if (end === 'commit') await t.commit();
  if (end === 'abort') await t.abort();
  return res[0].baseOffset;
}

async function main() {
  const kafka = new Kafka({
    clientId: 'gregor-txn', brokers: [bootstrap], logLevel: logLevel.ERROR,
    retry: { retries: 8 }, connectionTimeout: 5000, requestTimeout: 30000,
  });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
  await admin.disconnect();
  const producer = kafka.producer({
    transactionalId: 'txn-scenario-' + topic, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 8000,
  });
  await producer.connect();
  check((await txn(producer, ['a1', 'a2'], 'commit')) === '0', 'transaction A committed at offset 0');
  check((await txn(producer, ['b1', 'b2'], 'abort')) === '3', 'transaction B aborted at offset 3');
  check((await txn(producer, ['c1'], 'commit')) === '6', 'transaction C committed at offset 6');
  check((await txn(producer, ['d1'], 'open')) === '8', 'transaction D open at offset 8');
  console.log('done');
  process.exit(failures ? 1 : 0); // no disconnect: D stays open
}

main().catch((e) => {
  console.log('FAIL - ' + (e && e.stack ? e.stack.split('\n')[0] : e));
  process.exit(1);
});
