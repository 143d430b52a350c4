// The @kafkats/client driver of tests/interop/test_share_crossclient.sh: the scenarios of
// tests/integration/client_share_xclient.c (libgregor) and ShareXClient.java (Java), printing the
// same normalized lines (offsets, delivery counts, error names; never times).
//
//   node share_xclient.mjs BOOTSTRAP PREFIX [drain|acks|refusal|close|expiry|limit|renew|leave ...]
// Scenario S uses topic PREFIX-S (1 partition) and group PREFIX-S-g, created and configured by the
// test. @kafkats/client's ShareConsumer has no poll(): a handler is called per record (runEach) and
// the record is ACCEPTed when the handler returns unless it acknowledged the record itself. Here:
//  - "got" = the handler calls in arrival order; "commit" = the settled promises of the explicit
//    ack()/release()/reject() calls (NONE, or the first error's Kafka name);
//  - a holder keeps its records by not returning from the handlers; "close" = stop() while they
//    hold them, the handlers then end without acknowledging, and the member's client disconnects;
//  - each member gets its own KafkaClient (connections), and the records are produced only once
//    every member is assigned: the client's warm-up ShareFetch at assignment RELEASEs whatever it
//    acquired, which would use up one delivery attempt (see kafkats_share.mjs);
//  - refusal (poll with unacknowledged records) cannot be expressed: "refusal unsupported".
import { KafkaClient, getErrorName } from '@kafkats/client'

const [bootstrap, prefix, ...wanted] = process.argv.slice(2)
if (!bootstrap || !prefix) {
	console.error('usage: node share_xclient.mjs BOOTSTRAP PREFIX [drain|acks|refusal|close|expiry|limit|renew ...]')
	process.exit(2)
}
const info = (s) => console.error(`[kafkats] ${s}`)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const until = async (cond, ms, step = 20) => {
	const end = Date.now() + ms
	while (Date.now() < end) {
		if (cond()) return true
		await sleep(step)
	}
	return cond()
}
const topic = (s) => `${prefix}-${s}`
const line = (s, what, v) => console.log(`${s} ${what}: ${v}`)
const fmt = (ds) => (ds.length ? ds.map((d) => `${d.offset}:${d.dc}`).join(' ') : 'none')
// Kafka's error name (INVALID_RECORD_STATE) from a KafkaProtocolError, else the error's class name
const errName = (e) =>
	e && typeof e.errorCode === 'number'
		? getErrorName(e.errorCode).replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()
		: String((e && e.name) || e)
// NONE when every result is NONE, else the first error
const outcome = async (ds) => {
	const rs = await Promise.all(ds.map((d) => d.result ?? Promise.resolve('no acknowledgement')))
	return rs.find((r) => r !== 'NONE') ?? 'NONE'
}

const main = new KafkaClient({ brokers: [bootstrap], clientId: 'xc-kafkats-producer', logLevel: 'error' })
let producer = null
// n records key k<i> value v<i> to partition 0 in one send (one batch)
async function produce(s, n) {
	producer ??= main.producer({ acks: 'all', lingerMs: 0 })
	const msgs = []
	for (let i = 0; i < n; i++) msgs.push({ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), partition: 0 })
	await producer.send(topic(s), msgs)
}

// A member of group PREFIX-S-g. policy(d, m, msg) runs in the handler for each delivery d and returns
// 'accept' | 'release' | 'reject' (acknowledged explicitly; d.result settles with the outcome) or
// 'drop' (the handler throws: no acknowledgement); it may wait first.
async function member(s, policy) {
	for (let attempt = 0; ; attempt++) {
		const client = new KafkaClient({ brokers: [bootstrap], clientId: `xc-kafkats-${s}`, logLevel: 'error' })
		await client.connect()
		const c = client.shareConsumer({ groupId: `${topic(s)}-g`, maxWaitMs: 200 })
		const m = { client, c, deliveries: [], errors: [], assigned: false }
		c.on('error', (e) => m.errors.push(String(e && e.message ? e.message : e)))
		c.on('partitionsAssigned', () => { m.assigned = true })
		m.done = c
			.runEach(topic(s), async (msg) => {
				const d = { offset: Number(msg.offset), dc: msg.deliveryCount, result: null }
				m.deliveries.push(d)
				const action = await policy(d, m, msg)
				if (action === 'drop') throw new Error('dropped without acknowledgement')
				const p = action === 'release' ? msg.release() : action === 'reject' ? msg.reject() : msg.ack()
				d.result = p.then(() => 'NONE', (e) => errName(e))
				await d.result
			})
			.catch((e) => m.errors.push(String(e && e.message ? e.message : e)))
		m.stop = async () => {
			await c.stop()
			await m.done
			await client.disconnect()
		}
		await until(() => m.assigned || m.errors.length > 0, 20000)
		if (m.assigned && m.errors.length === 0) return m
		// a fresh Apache Kafka may refuse the first share-group heartbeats (coordinator loading)
		info(`${s}: member not assigned (attempt ${attempt}): ${m.errors.join('; ') || 'timeout'}`)
		await m.stop().catch(() => {})
		if (attempt >= 5) throw new Error(`${s}: no assignment`)
		await sleep(1000)
	}
}

// A gate: open(v) resolves wait() with v.
function gate() {
	let open
	const p = new Promise((r) => { open = r })
	return { wait: () => p, open }
}

async function drain() {
	const s = 'drain'
	const m = await member(s, async () => 'accept')
	await produce(s, 10)
	await until(() => m.deliveries.length >= 10, 20000)
	await sleep(2500) // nothing may come back (lock 1 s)
	line(s, 'got', fmt(m.deliveries.slice(0, 10)))
	line(s, 'more', fmt(m.deliveries.slice(10)))
	await m.stop()
}

async function acks() {
	const s = 'acks'
	const m = await member(s, async (d) =>
		d.dc !== 1 || d.offset === 0 ? 'accept' : d.offset === 1 ? 'release' : 'reject')
	await produce(s, 3)
	await until(() => m.deliveries.length >= 3, 20000)
	const first = m.deliveries.slice(0, 3)
	line(s, 'got', fmt(first))
	line(s, 'commit', await outcome(first))
	await until(() => m.deliveries.length >= 4, 10000)
	const second = m.deliveries.slice(3)
	line(s, 'got', fmt(second))
	line(s, 'commit', await outcome(second))
	const n = m.deliveries.length
	await sleep(2500)
	line(s, 'more', fmt(m.deliveries.slice(n)))
	await m.stop()
}

// Two members; the first to get records is the holder: by default its handlers wait for
// holderGate, the other member's for otherGate (holderPolicy / otherPolicy replace that).
async function pair(s, n = 3, holderPolicy = null, otherPolicy = null) {
	const st = { holder: null, holderGate: gate(), otherGate: gate() }
	const policy = (d, m, msg) => {
		if (st.holder === null) st.holder = m
		if (st.holder === m) return holderPolicy ? holderPolicy(d, m, msg) : st.holderGate.wait()
		return otherPolicy ? otherPolicy(d, m, msg) : st.otherGate.wait()
	}
	st.members = [await member(s, policy), await member(s, policy)]
	st.other = () => st.members.find((m) => m !== st.holder)
	await produce(s, n)
	await until(() => st.holder !== null && st.holder.deliveries.length >= n, 20000)
	return st
}

async function close() {
	const s = 'close'
	const st = await pair(s)
	const h = st.holder
	line(s, 'holder got', fmt(h ? h.deliveries : []))
	if (!h) return Promise.all(st.members.map((m) => m.stop()))
	const o = st.other()
	st.otherGate.open('accept')
	const stopping = h.c.stop()
	st.holderGate.open('drop')
	let closed = 'NONE'
	try {
		await stopping
		await h.stop()
	} catch (e) {
		closed = errName(e)
	}
	line(s, 'holder close', closed)
	// the lock is 30 s: records that arrive within 15 s were released by the close
	await until(() => o.deliveries.length >= 3, 15000)
	line(s, 'other got', fmt(o.deliveries))
	line(s, 'other commit', await outcome(o.deliveries))
	await o.stop()
}

async function expiry() {
	const s = 'expiry'
	const st = await pair(s)
	const h = st.holder
	line(s, 'holder got', fmt(h ? h.deliveries : []))
	if (!h) return Promise.all(st.members.map((m) => m.stop()))
	const o = st.other()
	await until(() => o.deliveries.length >= 3, 15000) // after the holder's 1 s lock expired
	line(s, 'other got', fmt(o.deliveries))
	st.holderGate.open('accept')
	line(s, 'holder late commit', await until(() => h.deliveries.every((d) => d.result), 5000).then(() => outcome(h.deliveries)))
	st.otherGate.open('accept')
	await until(() => o.deliveries.every((d) => d.result), 5000)
	line(s, 'other commit', await outcome(o.deliveries))
	for (const m of st.members) await m.stop()
}

async function limit() {
	const s = 'limit'
	const m = await member(s, async () => 'release')
	await produce(s, 1)
	for (let round = 0; round < 2; round++) {
		await until(() => m.deliveries.length >= round + 1, round ? 10000 : 20000)
		const ds = m.deliveries.slice(round, round + 1)
		line(s, 'got', fmt(ds))
		line(s, 'commit', await outcome(ds))
	}
	await sleep(2500) // a third delivery would come now
	line(s, 'more', fmt(m.deliveries.slice(2)))
	await m.stop()
}

// The holder's handler RENEWs 10 times about 0.3 s apart (several 1 s lock durations), then the
// record is ACCEPTed; the other member accepts whatever it gets (nothing, if the renewals work).
async function renew() {
	const s = 'renew'
	let renewals = 'NONE'
	let renewed = false
	const st = await pair(s, 1, async (d, m, msg) => {
		for (let round = 0; round < 10; round++) {
			await sleep(300)
			try {
				await msg.renew()
			} catch (e) {
				if (renewals === 'NONE') renewals = errName(e)
			}
		}
		renewed = true
		return 'accept'
	}, async () => 'accept')
	const h = st.holder
	line(s, 'holder got', fmt(h ? h.deliveries : []))
	if (!h) return Promise.all(st.members.map((m) => m.stop()))
	const o = st.other()
	await until(() => renewed, 10000)
	line(s, 'renewals', renewed ? renewals : 'not finished')
	line(s, 'holder has after renewals', fmt(h.deliveries))
	const n = o.deliveries.length
	line(s, 'other got', fmt(o.deliveries))
	await until(() => h.deliveries.every((d) => d.result), 5000)
	line(s, 'holder accept', await outcome(h.deliveries))
	await sleep(2500)
	line(s, 'other more', fmt(o.deliveries.slice(n)))
	for (const m of st.members) await m.stop()
}

// kafkats only (not one of the shared scenarios): the holder stop()s but its KafkaClient stays
// connected (as when one client serves several consumers and producers): it leaves the group
// (ShareGroupHeartbeat epoch -1) without ending its share session, so its records stay acquired
// until their lock (30 s) expires -- Apache Kafka 4.4.0 does not release them on the leave.
async function leave() {
	const s = 'leave'
	const st = await pair(s)
	const h = st.holder
	line(s, 'holder got', fmt(h ? h.deliveries : []))
	if (!h) return Promise.all(st.members.map((m) => m.stop()))
	const o = st.other()
	st.otherGate.open('accept')
	const stopping = h.c.stop()
	st.holderGate.open('drop')
	await stopping
	await h.done
	await sleep(3000)
	line(s, 'other got within 3 s', fmt(o.deliveries))
	await o.stop()
	await h.client.disconnect()
}

async function refusal() {
	console.log('refusal unsupported')
}

const scenarios = { drain, acks, refusal, close, expiry, limit, renew, leave }
const list = wanted.length ? wanted : Object.keys(scenarios).filter((s) => s !== 'leave')
await main.connect()
let status = 0
for (const s of list) {
	const t0 = Date.now()
	try {
		if (!scenarios[s]) throw new Error(`unknown scenario ${s}`)
		await scenarios[s]()
	} catch (e) {
		console.log(`${s} threw ${e && e.message ? e.message : e}`)
		info(`${s}: ${e && e.stack ? e.stack : e}`)
		status = 1
	}
	info(`scenario ${s} took ${Date.now() - t0} ms`)
}
try {
	if (producer) await producer.disconnect()
	await main.disconnect()
} catch (e) {
	info(`disconnect: ${e}`)
}
process.exit(status)
