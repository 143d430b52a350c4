// @kafkats/client ShareConsumer (KIP-932) against a broker; run by tests/interop/test_kafkats_share.sh,
// which creates the topics (1 partition each) and the group configs beforehand (share.auto.offset.reset
// earliest, share.record.lock.duration.ms LOCK_MS, share.delivery.count.limit 2 for the limit group).
//
//   node kafkats_share.mjs BOOTSTRAP LOCK_MS PREFIX [scenario ...]
// Topic and group of scenario S: PREFIX-S and PREFIX-S-g. Scenarios:
//   four     4 consumers, 200 records produced while they run: all 4 receive records, every record
//            delivered exactly once overall (deliveryCount 1)
//   release  RELEASE of offset 2 on its first delivery: redelivered with deliveryCount 2, the others once
//   reject   REJECT of offset 1: never delivered again (same consumer, then a fresh one), lag nothing
//   stall    consumer S takes 10 records and stops processing (its handler blocks; heartbeats go on):
//            after the lock expires two other consumers get all 10, deliveryCount 2
//   limit    share.delivery.count.limit=2, offset 0 always RELEASEd: delivered twice, then archived
// Prints "ok   - ..." / "FAIL - ..." lines and "done".
import { KafkaClient } from '@kafkats/client'

const [bootstrap, lockArg, prefix, ...wanted] = process.argv.slice(2)
if (!bootstrap || !lockArg || !prefix) {
	console.error('usage: node kafkats_share.mjs BOOTSTRAP LOCK_MS PREFIX [scenario ...]')
	process.exit(2)
}
const lockMs = Number(lockArg)
let failures = 0
const check = (cond, what) => {
	console.log(`${cond ? 'ok  ' : 'FAIL'} - ${what}`)
	if (!cond) failures++
}
const info = (s) => console.error(`[kafkats] ${s}`)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const until = async (cond, ms, step = 50) => {
	const end = Date.now() + ms
	while (Date.now() < end) {
		if (cond()) return true
		await sleep(step)
	}
	return cond()
}

const client = new KafkaClient({ brokers: [bootstrap], clientId: 'kafkats-share-interop', logLevel: 'error' })
const topic = (s) => `${prefix}-${s}`
const group = (s) => `${prefix}-${s}-g`

async function produce(t, from, n, perSend = n, pauseMs = 0) {
	const producer = client.producer({ acks: 'all', lingerMs: 0 })
	try {
		for (let i = from; i < from + n; i += perSend) {
			const msgs = []
			for (let j = i; j < Math.min(from + n, i + perSend); j++) msgs.push({ key: Buffer.from(`k-${j}`), value: Buffer.from(`v-${j}`), partition: 0 })
			await producer.send(t, msgs)
			if (pauseMs) await sleep(pauseMs)
		}
	} finally {
		await producer.disconnect()
	}
}

// A share consumer running runEach with `handler(msg)`; returns { stop, done, deliveries }.
function startConsumer(name, scen, handler, cfg = {}, runOpts = {}) {
	const c = client.shareConsumer({ groupId: group(scen), maxWaitMs: 500, ...cfg })
	const deliveries = []
	const errors = []
	c.on('error', (e) => errors.push(String(e && e.message ? e.message : e)))
	const done = c
		.runEach(
			topic(scen),
			async (m) => {
				deliveries.push({ offset: Number(m.offset), dc: m.deliveryCount, at: Date.now() })
				await handler(m)
			},
			{ idleBackoffMs: 100, ...runOpts },
		)
		.catch((e) => errors.push(String(e && e.message ? e.message : e)))
	return { name, c, deliveries, errors, done, stop: async () => { await c.stop(); await done } }
}

// @kafkats/client starts with a warm-up ShareFetch (MaxWaitMs 0) and RELEASEs whatever it acquired,
// which costs those records one delivery attempt (their first real delivery then has deliveryCount 2,
// on Apache Kafka as on gregord). The scenarios therefore produce only once the consumers have joined
// and made that first fetch.
const joined = () => sleep(2500)

const fmt = (ds) => ds.map((d) => `${d.offset}#${d.dc}`).join(',')

// ---------------------------------------------------------------- scenarios
async function four() {
	const s = 'four', N = 200
	const cons = []
	for (let i = 0; i < 4; i++) {
		cons.push(startConsumer(`c${i}`, s, async (m) => { await sleep(10); await m.ack() },
			{ maxRecords: 10, batchSize: 10, acquireMode: 'record_limit' }, { concurrency: 1, ackBatchSize: 1 }))
	}
	await joined()
	await produce(topic(s), 0, N, 5, 20)
	const all = () => cons.flatMap((c) => c.deliveries)
	await until(() => new Set(all().map((d) => d.offset)).size >= N, 60000)
	await sleep(1500) // late duplicates would show up here
	for (const c of cons) await c.stop()
	const ds = all()
	const per = cons.map((c) => c.deliveries.length)
	const offsets = new Set(ds.map((d) => d.offset))
	check(offsets.size === N, `${s}: all ${N} records received (${offsets.size} distinct)`)
	check(ds.length === N, `${s}: each record exactly once (${ds.length} deliveries for ${offsets.size} records)`)
	check(per.every((n) => n > 0), `${s}: all 4 consumers received records (${per.join('/')})`)
	check(ds.every((d) => d.dc === 1), `${s}: deliveryCount 1 everywhere`)
	const errs = cons.flatMap((c) => c.errors)
	check(errs.length === 0, `${s}: no consumer errors (${errs.slice(0, 3).join('; ')})`)
}

async function release() {
	const s = 'release'
	const c = startConsumer('c', s, async (m) => {
		if (Number(m.offset) === 2 && m.deliveryCount === 1) await m.release()
		else await m.ack()
	})
	await joined()
	await produce(topic(s), 0, 5)
	await until(() => c.deliveries.filter((d) => d.offset === 2).length >= 2 && new Set(c.deliveries.map((d) => d.offset)).size >= 5, 30000)
	await sleep(lockMs + 1000) // nothing else may come back
	await c.stop()
	const o2 = c.deliveries.filter((d) => d.offset === 2).map((d) => d.dc)
	check(JSON.stringify(o2) === '[1,2]', `${s}: released record redelivered with deliveryCount 2 (offset 2: ${JSON.stringify(o2)})`)
	const d2 = c.deliveries.filter((d) => d.offset === 2)
	const gap = d2.length >= 2 ? d2[1].at - d2[0].at : -1
	check(gap >= 0 && gap < lockMs, `${s}: redelivered after the RELEASE, before any lock expiry (${gap} ms < ${lockMs} ms)`)
	const others = c.deliveries.filter((d) => d.offset !== 2)
	check(others.length === 4 && others.every((d) => d.dc === 1), `${s}: accepted records delivered once (${fmt(others)})`)
	check(c.errors.length === 0, `${s}: no consumer errors (${c.errors.slice(0, 3).join('; ')})`)
}

async function reject() {
	const s = 'reject'
	const c = startConsumer('c', s, async (m) => {
		if (Number(m.offset) === 1) await m.reject()
		else await m.ack()
	})
	await joined()
	await produce(topic(s), 0, 5)
	await until(() => new Set(c.deliveries.map((d) => d.offset)).size >= 5, 30000)
	await sleep(lockMs + 1000)
	await c.stop()
	const c2 = startConsumer('c2', s, async (m) => { await m.ack() })
	await sleep(lockMs + 2000)
	await c2.stop()
	const o1 = c.deliveries.filter((d) => d.offset === 1)
	check(c.deliveries.length === 5 && o1.length === 1, `${s}: 5 records, the rejected one delivered once (${fmt(c.deliveries)})`)
	check(c2.deliveries.length === 0, `${s}: a fresh consumer gets nothing: REJECT archived the record (${fmt(c2.deliveries)})`)
	check(c.errors.length + c2.errors.length === 0, `${s}: no consumer errors (${[...c.errors, ...c2.errors].slice(0, 3).join('; ')})`)
}

async function stall() {
	const s = 'stall', N = 10
	let release
	const blocked = new Promise((r) => { release = r })
	const st = startConsumer('stalled', s, async () => { await blocked }, {}, { concurrency: 1 })
	await joined()
	await produce(topic(s), 0, N)
	const took = await until(() => st.deliveries.length >= 1, 20000)
	check(took, `${s}: the stalling consumer took a record (${fmt(st.deliveries)})`)
	const t0 = st.deliveries.length ? st.deliveries[0].at : Date.now()
	const others = [0, 1].map((i) => startConsumer(`o${i}`, s, async (m) => { await m.ack() }))
	const all = () => others.flatMap((c) => c.deliveries)
	await until(() => new Set(all().map((d) => d.offset)).size >= N, 4 * lockMs + 20000)
	const first = all().length ? Math.min(...all().map((d) => d.at)) - t0 : -1
	await sleep(1000)
	for (const c of others) await c.stop()
	release()
	await st.stop()
	const ds = all()
	const offs = new Set(ds.map((d) => d.offset))
	check(offs.size === N, `${s}: the other consumers got all ${N} records after the lock expired (${offs.size})`)
	check(ds.length === N && ds.every((d) => d.dc === 2), `${s}: each once, deliveryCount 2 (${fmt(ds)})`)
	check(first >= lockMs - 500, `${s}: not before the lock expired (first after ${first} ms; lock ${lockMs} ms)`)
	check(st.deliveries.length === 1, `${s}: the stalled consumer processed nothing more (${st.deliveries.length})`)
}

async function limit() {
	const s = 'limit'
	const c = startConsumer('c', s, async (m) => {
		if (Number(m.offset) === 0) await m.release()
		else await m.ack()
	})
	await joined()
	await produce(topic(s), 0, 3)
	await until(() => c.deliveries.filter((d) => d.offset === 0).length >= 2, 30000)
	await sleep(lockMs + 2000) // a third delivery would come now
	await c.stop()
	const c2 = startConsumer('c2', s, async (m) => { await m.ack() })
	await sleep(lockMs + 2000)
	await c2.stop()
	const o0 = c.deliveries.filter((d) => d.offset === 0).map((d) => d.dc)
	check(JSON.stringify(o0) === '[1,2]', `${s}: always-released record delivered twice (deliveryCount ${JSON.stringify(o0)}), then archived`)
	check(c2.deliveries.length === 0, `${s}: a fresh consumer gets nothing (${fmt(c2.deliveries)})`)
	const rest = c.deliveries.filter((d) => d.offset !== 0)
	check(rest.length === 2 && rest.every((d) => d.dc === 1), `${s}: the other records once (${fmt(rest)})`)
}

await client.connect()

// Warm-up: on a fresh broker the group coordinator may not be ready yet (Apache Kafka creates
// __consumer_offsets on first use; @kafkats/client then fails its ShareGroupHeartbeat with "feature
// unsupported"). Join a throw-away share group until that works, so the scenarios start clean.
{
	const t0 = Date.now()
	let ready = false
	for (let attempt = 0; attempt < 20 && !ready; attempt++) {
		const w = client.shareConsumer({ groupId: `${prefix}-warmup`, maxWaitMs: 200 })
		const errs = []
		let assigned = false
		w.on('error', (e) => errs.push(String(e && e.message ? e.message : e)))
		w.on('partitionsAssigned', () => { assigned = true })
		const done = w.runEach(topic(wanted[0] || 'four'), async () => {}).catch((e) => errs.push(String(e)))
		await until(() => assigned || errs.length > 0, 5000)
		ready = assigned && errs.length === 0
		await w.stop()
		await done
		if (!ready) {
			info(`warm-up attempt ${attempt}: ${errs.join('; ') || 'no assignment'}`)
			await sleep(1000)
		}
	}
	info(`warm-up ${ready ? 'done' : 'FAILED'} after ${Date.now() - t0} ms`)
}
const scenarios = { four, release, reject, stall, limit }
const list = wanted.length ? wanted : Object.keys(scenarios)
const watchdog = setTimeout(() => { console.log('FAIL - kafkats_share.mjs timed out'); process.exit(1) }, 400000)
for (const s of list) {
	const t0 = Date.now()
	info(`scenario ${s}`)
	try {
		if (!scenarios[s]) throw new Error(`unknown scenario ${s}`)
		await scenarios[s]()
	} catch (e) {
		check(false, `${s}: threw ${e && e.stack ? e.stack : e}`)
	}
	info(`scenario ${s} took ${Date.now() - t0} ms`)
}
clearTimeout(watchdog)
try { await client.disconnect() } catch (e) { info(`disconnect: ${e}`) }
console.log('done')
process.exit(failures ? 1 : 0)
