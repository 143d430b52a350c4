// kafkajs 2.2 interop: admin creates/describes/alters/deletes topics, an idempotent producer
// sends N messages, fetchTopicOffsets checks the offsets.
// usage: node kafkajs_check.js BOOTSTRAP [N]. Prints "ok   - ..."/"FAIL - ..." lines; exit 1 on failure.
'use strict';
const { Kafka, logLevel, ConfigResourceTypes, CompressionTypes } = require('kafkajs');

const bootstrap = process.argv[2];
const n = parseInt(process.argv[3] || '5000', 10);
let failures = 0;
function check(cond, what) {
  console.log((cond ? 'ok   - ' : 'FAIL - ') + what);
  if (!cond) failures++;
}

async function main() {
  const kafka = new Kafka({
    clientId: 'gregor-interop',
    brokers: [bootstrap],
    logLevel: logLevel.ERROR,
    retry: { retries: 5 },
    connectionTimeout: 5000,
    requestTimeout: 30000,
  });
  const admin = kafka.admin();
  await admin.connect();
  const topic = 'kjs-' + Math.random().toString(16).slice(2, 10);
  const parts = 3;

  const created = await admin.createTopics({
    waitForLeaders: true,
    topics: [{ topic, numPartitions: parts, replicationFactor: 1,
               configEntries: [{ name: 'retention.ms', value: '3600000' }] }],
  });
  check(created === true, `createTopics ${topic} (3 partitions)`);
  const again = await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
  check(again === false, 'createTopics of an existing topic returns false');

  const listed = await admin.listTopics();
  check(listed.includes(topic), 'listTopics includes the topic');
  const md = await admin.fetchTopicMetadata({ topics: [topic] });
  const tmd = md.topics.find((t) => t.name === topic);
  check(tmd && tmd.partitions.length === parts && tmd.partitions.every((p) => p.leader >= 0),
    `fetchTopicMetadata: ${tmd ? tmd.partitions.length : 0} partitions with leaders`);

  const desc = async () => {
    const r = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
    });
    const entries = r.resources[0].configEntries;
    return Object.fromEntries(entries.map((e) => [e.configName, e]));
  };
  let cfg = await desc();
  check(cfg['retention.ms'] && cfg['retention.ms'].configValue === '3600000',
    `describeConfigs retention.ms=${cfg['retention.ms'] && cfg['retention.ms'].configValue}`);
  check(cfg['cleanup.policy'] && cfg['cleanup.policy'].configValue === 'delete' && cfg['cleanup.policy'].isDefault,
    `describeConfigs cleanup.policy default delete`);

  await admin.alterConfigs({
    validateOnly: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic,
                  configEntries: [{ name: 'retention.ms', value: '7200000' },
                                  { name: 'segment.bytes', value: '10485760' }] }],
  });
  // Apache Kafka applies config changes through its metadata log: poll briefly.
  for (let i = 0; i < 50; i++) {
    cfg = await desc();
    if (cfg['retention.ms'].configValue === '7200000' && cfg['segment.bytes'].configValue === '10485760') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  check(cfg['retention.ms'].configValue === '7200000' && cfg['segment.bytes'].configValue === '10485760',
    `alterConfigs retention.ms=${cfg['retention.ms'].configValue} segment.bytes=${cfg['segment.bytes'].configValue}`);

  // idempotent producer
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const t0 = Date.now();
  const batch = 500;
  let acked = 0;
  for (let i = 0; i < n; i += batch) {
    const messages = [];
    for (let j = i; j < Math.min(n, i + batch); j++) {
      messages.push({ key: `k${j}`, value: `v${j}-` + 'n'.repeat(j % 89) });
    }
    const res = await producer.send({ topic, acks: -1, compression: CompressionTypes.GZIP, messages });
    acked += messages.length;
    if (!res.every((r) => r.errorCode === 0)) check(false, 'produce answered with an error: ' + JSON.stringify(res));
  }
  await producer.disconnect();
  check(acked === n, `idempotent producer sent ${acked} messages (${Date.now() - t0} ms)`);

  const offs = await admin.fetchTopicOffsets(topic);
  const total = offs.reduce((s, o) => s + Number(o.high), 0);
  check(offs.length === parts && offs.every((o) => Number(o.low) === 0) && total === n,
    `fetchTopicOffsets: high watermarks sum to ${total}, low = 0`);

  await admin.deleteTopics({ topics: [topic], timeout: 30000 });
  let gone = false;
  for (let i = 0; i < 50 && !gone; i++) {
    gone = !(await admin.listTopics()).includes(topic);
    if (!gone) await new Promise((r) => setTimeout(r, 200));
  }
  check(gone, 'deleteTopics: topic gone');
  await admin.disconnect();
}

const watchdog = setTimeout(() => { console.log('FAIL - kafkajs check timed out'); process.exit(1); }, 240000);
main().then(() => {
  clearTimeout(watchdog);
  console.log('done');
  process.exit(failures ? 1 : 0);
}).catch((e) => {
  console.log('FAIL - ' + (e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e));
  process.exit(1);
});
