// client_test.mjs: 'dtk mcp' driven by the official MCP TypeScript SDK's
// client (Client + StdioClientTransport): initialize, tools (every one),
// errors, resources; then raw protocol errors on a bare child process.
//   DTK=path/to/dtk DTK_SRC=path/to/source node --test tests/mcp/client_test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

const DTK = process.env.DTK;
const SRC = process.env.DTK_SRC;
assert.ok(DTK && SRC, 'DTK and DTK_SRC must be set');

let base, client, stderr = '';

// A copy of the test fixture base: the write tools change it.
function copyBase() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dtk-mcp-'));
    fs.cpSync(path.join(SRC, 'tests/fixtures/base'), dir, { recursive: true });
    return dir;
}

async function connect(dir, args = []) {
    // the node cache outside the user's ~/.cache (docs/design.md)
    const env = { ...getDefaultEnvironment(),
                  XDG_CACHE_HOME: process.env.XDG_CACHE_HOME || path.join(dir + '.cache') };
    const transport = new StdioClientTransport({ command: DTK, args: ['-C', dir, 'mcp', ...args],
                                                 env, stderr: 'pipe' });
    transport.stderr.on('data', (d) => { stderr += d; });
    const c = new Client({ name: 'dtk-test', version: '1.0.0' });
    await c.connect(transport);
    return c;
}

before(async () => {
    base = copyBase();
    client = await connect(base);
});

after(async () => {
    await client.close();
    fs.rmSync(base, { recursive: true, force: true });
});

async function rpcError(promise) {
    try {
        await promise;
    } catch (e) {
        assert.ok(e instanceof McpError, `an McpError, not ${e}`);
        return e;
    }
    assert.fail('the call succeeded');
}

test('initialize: server name, version negotiated, capabilities', async () => {
    assert.equal(client.getServerVersion().name, 'dtk');
    const caps = client.getServerCapabilities();
    assert.ok(caps.tools, 'tools capability');
    assert.ok(caps.resources, 'resources capability');
    await client.ping();
});

test('tools/list: every read tool, with schemas', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['show', 'list', 'search', 'next_id', 'check', 'crystallize_plan'])
        assert.ok(names.includes(n), `tool ${n} listed (got ${names})`);
    for (const t of tools) {
        assert.equal(t.inputSchema.type, 'object', t.name);
        assert.equal(t.outputSchema.type, 'object', t.name);
        assert.ok(t.description.length > 20, t.name);
    }
});

// The SDK's client checks structuredContent against the tool's outputSchema.
async function call(name, args) {
    const r = await client.callTool({ name, arguments: args });
    assert.equal(r.isError, false, `${name}: ${JSON.stringify(r.content)}`);
    assert.equal(JSON.stringify(r.structuredContent), r.content[0].text);
    return r.structuredContent;
}

test('sources, and a read-only server: the SDK lists, calls and validates them', async () => {
    const ro = await connect(base, ['--read-only']);
    try {
        const { tools } = await ro.listTools();
        assert.deepEqual(tools.map((t) => t.name), ['show', 'list', 'search', 'sources', 'similar',
                                                    'next_id', 'check', 'crystallize_plan']);
        assert.ok(tools.every((t) => t.annotations.readOnlyHint));
        // the SDK checks structuredContent against the outputSchema
        const r = await ro.callTool({ name: 'sources', arguments: { query: 'paper', limit: 2 } });
        assert.deepEqual(r.structuredContent.entries.map((e) => e.id), ['paper-a', 'paper-b']);
        assert.equal(r.structuredContent.total, 3);
        const s = await ro.callTool({ name: 'show', arguments: { target: 'docs-d' } });
        assert.equal(s.structuredContent.title, 'Docs D');
        const e = await rpcError(ro.callTool({ name: 'add', arguments: {} }));
        assert.equal(e.code, -32602);
        const { contents } = await ro.readResource({ uri: 'dtk://sources' });
        assert.equal(contents[0].text,
                     fs.readFileSync(path.join(base, 'insights/_sources.yaml'), 'utf8'));
    } finally {
        await ro.close();
    }
});

test('show: a node and an entry with what names it', async () => {
    const e = await call('show', { target: 'alpha-001' });
    assert.equal(e.id, 'alpha-001');
    assert.deepEqual(e.referenced_by.map((l) => [l.id, l.how]),
                     [['alpha-002', 'relates'], ['alpha-003', 'contradicts']]);
    const n = await call('show', { target: 'beta' });
    assert.equal(n.node, 'beta');
    assert.equal(n.entries.length, 2);
});

test('list: filters', async () => {
    assert.equal((await call('list', {})).entries.length, 5);
    const l = await call('list', { node: ['alpha'], confidence: 'medium' });
    assert.deepEqual(l.entries.map((e) => e.id), ['alpha-002']);
    const c = await call('list', { candidates: true });
    assert.deepEqual(c.entries.map((e) => e.id), ['alpha-002']);
});

test('search: words, limit, no hit', async () => {
    const s = await call('search', { query: 'ＴＥＮＳＯＲ 延迟' });
    assert.deepEqual(s.entries.map((e) => e.id), ['beta-001']);
    assert.equal((await call('search', { query: 'a', limit: 2 })).entries.length, 2);
    assert.deepEqual((await call('search', { query: 'zzz' })).entries, []);
});

test('next_id, check, crystallize_plan', async () => {
    // a fresh id: random, seven letters and digits, never a sequence number
    const fresh = (await call('next_id', { node: 'alpha' })).id;
    assert.match(fresh, /^alpha-[0-9a-hjkmnp-tv-z]{7}$/);
    assert.notEqual((await call('next_id', { node: 'alpha' })).id, fresh);
    assert.deepEqual(await call('check', {}), { valid: true, index_current: true });
    const p = await call('crystallize_plan', { date: '2026-08-01' });
    assert.equal(p.date, '2026-08-01');
});

test('a refused call is a tool error with the messages', async () => {
    let r = await client.callTool({ name: 'show', arguments: { target: 'alpah' } });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /no node, entry or source 'alpah'; did you mean 'alpha'\?/);
    const broken = copyBase();
    fs.writeFileSync(path.join(broken, 'insights/gamma.yaml'), 'node: gamma\nbloom: [\n');
    const c2 = await connect(broken);
    r = await c2.callTool({ name: 'check', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /^insights\/gamma\.yaml:3:1: error: /m);
    await c2.close();
    fs.rmSync(broken, { recursive: true, force: true });
});

test('an unknown tool and a bad cursor are JSON-RPC errors; bad arguments are tool errors', async () => {
    let e = await rpcError(client.callTool({ name: 'nope', arguments: {} }));
    assert.equal(e.code, ErrorCode.InvalidParams);
    e = await rpcError(client.callTool({ name: 'list', arguments: { cursor: 'bogus' } }));
    assert.equal(e.code, ErrorCode.InvalidParams);
    const bad = async (name, args, text) => {
        const r = await client.callTool({ name, arguments: args });
        assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
        assert.equal(r.content[0].text, text);
    };
    await bad('show', {}, "tool 'show' needs the argument 'target' (a node name, an entry " +
              "id (<node>-<suffix>) or a source id (sources finds one)): a string");
    await bad('list', { limit: 0 }, "tool 'list': argument 'limit' got 0; it accepts an " +
              'integer from 1 to 100');
    await bad('list', { confidence: 'HIGH' }, "tool 'list': argument 'confidence' got " +
              '"HIGH"; it accepts one of "high", "medium", "low"');
    await bad('list', { since: '2026-02-30' }, "tool 'list': argument 'since' got " +
              '"2026-02-30"; it accepts a date, YYYY-MM-DD, as a string');
    await bad('list', { bogus: 1 }, "tool 'list' has no argument 'bogus'; its arguments are " +
              "'node', 'confidence', 'since', 'stale_at', 'candidates', 'include_retired', 'limit', " +
              "'cursor'");
    await bad('bloom', { node: 'beta', level: 'expert' }, "tool 'bloom': argument 'level' got " +
              '"expert"; it accepts one of "remember", "understand", "apply", "analyze", ' +
              '"evaluate", "create"');
    // an integral number is an integer, whatever its spelling
    const r = await client.callTool({ name: 'list', arguments: { limit: 2.0 } });
    assert.equal(r.structuredContent.entries.length, 2);
});

test('messages name tools and arguments, not CLI commands and options', async () => {
    const r = await client.callTool({ name: 'add', arguments: {
        node: 'beta', title: 't', claim: 'c', source: 'nope', confidence: 'low' } });
    assert.equal(r.isError, true);
    const text = r.content.map((c) => c.text).join('\n');
    assert.match(text, /the tool 'add_source'/);
    assert.doesNotMatch(text, /'dtk |--[a-z]|dtk add:/);
});

test('list and search: short entries, a page at a time, a cursor to the next', async () => {
    const seen = [];
    let page = await call('list', { limit: 2 });
    assert.equal(page.total, 5);
    for (;;) {
        for (const e of page.entries) {
            assert.deepEqual(Object.keys(e), ['id', 'title', 'confidence', 'fresh', 'claim']);
            seen.push(e.id);
        }
        if (!page.nextCursor)
            break;
        page = await call('list', { limit: 2, cursor: page.nextCursor });
    }
    assert.deepEqual(seen, (await call('list', {})).entries.map((e) => e.id));
    assert.equal(seen.length, 5);
    const s = await call('search', { query: 'a', limit: 1 });
    assert.equal(s.entries.length, 1);
    assert.ok(s.nextCursor);
    const s2 = await call('search', { query: 'a', limit: 1, cursor: s.nextCursor });
    assert.notEqual(s2.entries[0].id, s.entries[0].id);
});

test('resources/templates/list offers the node template', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => [t.uriTemplate, t.mimeType]),
                     [['dtk://node/{name}', 'application/yaml']]);
});

test('tool annotations say what each tool does to the base', async () => {
    const { tools } = await client.listTools();
    const a = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const n of ['show', 'list', 'search', 'next_id', 'check', 'crystallize_plan'])
        assert.deepEqual([a[n].readOnlyHint, a[n].idempotentHint, a[n].destructiveHint],
                         [true, true, false], n);
    for (const n of ['use', 'cite', 'add'])
        assert.deepEqual([a[n].readOnlyHint, a[n].idempotentHint], [false, false], n);
    for (const n of ['stance', 'bloom', 'resolve'])
        assert.deepEqual([a[n].readOnlyHint, a[n].destructiveHint], [false, true], n);
    for (const n of ['contradict', 'relate', 'close', 'add_node'])
        assert.deepEqual([a[n].readOnlyHint, a[n].idempotentHint, a[n].destructiveHint],
                         [false, true, false], n);
    assert.match(tools.find((t) => t.name === 'cite').description, /use is for relying/);
    for (const t of tools)
        assert.doesNotMatch(t.description, /'dtk |--format/, t.name);
});

test('resources: INDEX.md and every node file, read-only', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri),
                     ['dtk://index', 'dtk://sources', 'dtk://node/alpha', 'dtk://node/beta',
                      'dtk://node/gamma']);
    let r = await client.readResource({ uri: 'dtk://node/alpha' });
    assert.equal(r.contents[0].mimeType, 'application/yaml');
    assert.equal(r.contents[0].text, fs.readFileSync(path.join(base, 'insights/alpha.yaml'), 'utf8'));
    r = await client.readResource({ uri: 'dtk://index' });
    assert.equal(r.contents[0].mimeType, 'text/markdown');
    assert.equal(r.contents[0].text, fs.readFileSync(path.join(base, 'INDEX.md'), 'utf8'));
    const e = await rpcError(client.readResource({ uri: 'dtk://node/nope' }));
    assert.equal(e.code, -32002);
});

test('each request sees the base as it is on disk', async () => {
    const f = path.join(base, 'insights/gamma.yaml');
    const before = fs.readFileSync(f);
    fs.appendFileSync(f, '');
    fs.writeFileSync(f, 'node: gamma\nbloom: remember\ninsights:\n' +
        '  - {id: gamma-007, title: new, claim: c, confidence: low, source: paper-a,\n' +
        '     created: 2026-01-01}\n');
    assert.match(JSON.stringify(await call('show', { target: 'gamma' })), /gamma-007/);
    fs.writeFileSync(f, before);
    assert.doesNotMatch(JSON.stringify(await call('show', { target: 'gamma' })), /gamma-007/);
    // a record of uses written into insights/_uses/ (a 'dtk use' elsewhere),
    // each one seen: the folder is watched too
    const uses = path.join(base, 'insights/_uses');
    const used = async () => (await call('show', { target: 'alpha-001' })).used;
    const n = await used();
    fs.mkdirSync(uses);
    fs.writeFileSync(path.join(uses, '2026-01-01-aaaaaaaaaa.yaml'), 'used: [alpha-001]\n');
    assert.equal(await used(), n + 1);
    fs.writeFileSync(path.join(uses, '2026-01-01-bbbbbbbbbb.yaml'), 'used: [alpha-001]\n');
    assert.equal(await used(), n + 2);
    fs.rmSync(uses, { recursive: true });
    assert.equal(await used(), n);
});

// ---- the write tools, on a base of their own ----

// Returns every file of the base's insights/ (and of its folder _uses/)
// and INDEX.md, as bytes.
function snapshot(dir) {
    const files = { 'INDEX.md': fs.readFileSync(path.join(dir, 'INDEX.md')) };
    for (const f of fs.readdirSync(path.join(dir, 'insights'), { recursive: true }).sort()) {
        const p = path.join(dir, 'insights', f);
        if (fs.statSync(p).isFile())
            files[f] = fs.readFileSync(p);
    }
    return files;
}

function sameBytes(a, b) {
    assert.deepEqual(Object.keys(a), Object.keys(b));
    for (const k of Object.keys(a))
        assert.ok(a[k].equals(b[k]), `${k} unchanged`);
}

test('write tools: each one, refusals and dry runs leave every byte', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['add', 'add_source', 'use', 'cite', 'close', 'verify', 'review', 'relate',
                     'contradict', 'resolve', 'stance', 'bloom', 'add_node'])
        assert.ok(names.includes(n), `write tool ${n} listed`);
    assert.equal(tools.find((t) => t.name === 'add').annotations.readOnlyHint, false);

    const dir = copyBase();
    const c = await connect(dir);
    const w = async (name, args) => {
        const r = await c.callTool({ name, arguments: args });
        assert.equal(r.isError, false, `${name}: ${JSON.stringify(r.content)}`);
        return r.structuredContent;
    };
    const refused = async (name, args, re) => {
        const before = snapshot(dir);
        const r = await c.callTool({ name, arguments: args });
        assert.equal(r.isError, true, `${name} refused`);
        assert.match(r.content[0].text, re);
        sameBytes(before, snapshot(dir));
    };

    let before = snapshot(dir);
    const dry = await w('use', { ids: 'alpha-001', dry_run: true });
    assert.equal(dry.dry_run, true);
    assert.match(dry.diff, /\+\+\+ b\/insights\/_uses\/[-0-9a-z]+\.yaml\n@@ -0,0 \+1,2 @@\n\+used:\n\+- alpha-001\n/);
    sameBytes(before, snapshot(dir));

    const e = await w('add', { node: 'beta', title: 'PP across pods', claim: 'Pipeline stages.',
                               source: 'paper-a', confidence: 'low', relates: ['alpha-002'] });
    // the gate's closest live entries come with it (none alike here)
    assert.deepEqual([e.id, e.node, e.title, e.closest], ['beta-35cgkqa', 'beta', 'PP across pods', []]);
    assert.match(fs.readFileSync(path.join(dir, 'insights/beta.yaml'), 'utf8'), /id: beta-35cgkqa/);
    await refused('add', { node: 'beta', title: 't', claim: 'c', source: 'paper-a',
                           confidence: 'high' }, /high/);
    await refused('add', { node: 'beta', title: 't', claim: 'c', source: 'nope',
                           confidence: 'low' }, /nope/);
    assert.equal((await w('add_source', { id: 'new-src', title: 'New source' })).id, 'new-src');
    let r = await w('use', { ids: ['alpha-001', 'beta-001'] });
    assert.deepEqual(r.entries.map((x) => [x.id, x.used]), [['alpha-001', 4], ['beta-001', 3]]);
    assert.equal((await w('cite', { ids: 'beta-001' })).entries[0].cited, 2);
    assert.equal((await w('close', { ids: 'beta-001' })).entries[0].closed, true);
    r = await w('verify', { id: 'beta-002', source: 'new-src' });
    assert.deepEqual(r.entries[0].verified_by.map((s) => s.id), ['new-src']);
    assert.equal((await w('review', { ids: 'beta-001', date: '2026-08-01' })).entries[0].reviewed,
                 '2026-08-01');
    assert.deepEqual((await w('relate', { id: 'beta-001', other: 'alpha-002' })).entries[0].relates,
                     ['alpha-002']);
    await refused('relate', { id: 'beta-001', other: 'beta-001' }, /relate to itself/);
    await refused('use', { ids: 'zeta-001' }, /zeta-001/);
    r = await w('contradict', { id: 'beta-002', other: 'alpha-001', note: 'scale differs' });
    assert.deepEqual(r.entries.map((x) => [x.id, x.contradicts]), [['beta-002',
        [{ id: 'alpha-001', status: 'open', note: 'scale differs' }]]]);
    await refused('contradict', { id: 'beta-002', other: 'alpha-001', note: 'again' },
                  /^contradict: error: (?!.*dtk )(?!.*--).*resolve/);
    r = await w('resolve', { id: 'beta-002', other: 'alpha-001', note: 'both hold' });
    assert.equal(r.entries[0].contradicts[0].status, 'resolved');
    r = await w('stance', { node: 'beta', text: 'Keep TP local.' });
    assert.deepEqual([r.node, r.stance], ['beta', 'Keep TP local.']);
    assert.equal((await w('bloom', { node: 'beta', level: 'analyze' })).bloom, 'analyze');
    r = await w('add_node', { node: 'delta', category: 'New', bloom: 'apply' });
    assert.deepEqual([r.node, r.category, r.bloom, r.entries], ['delta', 'New', 'apply', []]);
    assert.ok(fs.existsSync(path.join(dir, 'insights/delta.yaml')));
    // every write left a valid base and INDEX.md rebuilt
    assert.deepEqual(await w('check', {}), { valid: true, index_current: true });
    await c.close();
    fs.rmSync(dir, { recursive: true, force: true });
});

// ---- the lifecycle tools (edit ... retract, contradict, resolve, init) ----

test('lifecycle tools: each one changes what its command does, refusals leave every byte',
     async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['edit', 'edit_source', 'confidence', 'unrelate', 'unverify', 'supersede',
                     'retract', 'contradict', 'resolve', 'init'])
        assert.ok(names.includes(n), `lifecycle tool ${n} listed`);

    const dir = copyBase();
    const c = await connect(dir);
    const w = async (name, args) => {
        const r = await c.callTool({ name, arguments: args });
        assert.equal(r.isError, false, `${name}: ${JSON.stringify(r.content)}`);
        return r.structuredContent;
    };
    const refused = async (name, args, re) => {
        const before = snapshot(dir);
        const r = await c.callTool({ name, arguments: args });
        assert.equal(r.isError, true, `${name} refused`);
        assert.match(r.content[0].text, re);
        sameBytes(before, snapshot(dir));
    };
    const file = (rel) => fs.readFileSync(path.join(dir, rel), 'utf8');
    const alpha0 = file('insights/alpha.yaml');

    let r = await w('edit', { id: 'alpha-002', claim: 'Small messages are latency-bound.',
                              date: '2026-07-05' });
    assert.equal(r.entries[0].claim, 'Small messages are latency-bound.');
    assert.equal(r.entries[0].revised, '2026-07-05');
    assert.equal(file('insights/alpha.yaml'), alpha0.replace(
        '    claim: Small messages are bound by synchronization steps, not bandwidth.\n',
        '    claim: Small messages are latency-bound.\n').replace(
        '    relates: [alpha-001, cluster-infra:scale-up-interconnect-055]\n',
        '    relates: [alpha-001, cluster-infra:scale-up-interconnect-055]\n' +
        '    revised: 2026-07-05\n'));
    await refused('edit', { id: 'alpha-002', claim: 'Small messages are latency-bound.' },
                  /nothing to change/);
    r = await w('edit_source', { id: 'paper-b', url: 'https://example.org/b', date: '2026-07-05' });
    assert.deepEqual(r, { id: 'paper-b', title: 'Paper B', url: 'https://example.org/b',
                          read: null, revised: '2026-07-05' });
    const plan = await w('crystallize_plan', { date: '2026-07-10' });
    assert.deepEqual(plan.revised.map((e) => e.id), ['alpha-002']);
    assert.deepEqual(plan.revised_sources.map((e) => e.id), ['paper-b']);

    await refused('confidence', { level: 'high', ids: 'alpha-002' }, /high needs 2/);
    r = await w('confidence', { level: 'high', qualified: true });
    assert.deepEqual(r.entries.map((e) => [e.id, e.confidence]), [['beta-001', 'high']]);
    r = await w('confidence', { level: 'low', ids: ['alpha-002'] });
    assert.equal(r.entries[0].confidence, 'low');

    await refused('unverify', { id: 'beta-001', source: 'docs-d' }, /lower it/);
    r = await w('unverify', { id: 'beta-001', source: 'docs-d', confidence: 'medium' });
    assert.deepEqual([r.entries[0].confidence, r.entries[0].verified_by.map((s) => s.id)],
                     ['medium', ['paper-b']]);
    r = await w('unrelate', { id: 'alpha-002', other: 'alpha-001' });
    assert.deepEqual(r.entries[0].relates, ['cluster-infra:scale-up-interconnect-055']);

    await refused('contradict', { id: 'alpha-001', other: 'alpha-003', note: 'again' },
                  /alpha-003 already has a contradiction with alpha-001/);
    r = await w('resolve', { id: 'alpha-001', other: 'alpha-003', note: 'fixed' });
    assert.equal(r.entries[0].id, 'alpha-003');
    assert.equal(r.entries[0].contradicts[0].status, 'resolved');

    r = await w('supersede', { old: 'alpha-003', new: 'alpha-002', date: '2026-07-06' });
    assert.deepEqual([r.entries[0].superseded_by, r.entries[0].superseded],
                     ['alpha-002', '2026-07-06']);
    r = await w('retract', { ids: 'beta-002', reason: 'measured again', date: '2026-07-06' });
    assert.deepEqual([r.entries[0].retracted, r.entries[0].retracted_reason],
                     ['2026-07-06', 'measured again']);
    const listed = await w('list', {});
    assert.deepEqual(listed.entries.map((e) => e.id), ['alpha-001', 'alpha-002', 'beta-001']);
    const all = await w('list', { include_retired: true });
    assert.equal(all.entries.length, 5);
    await refused('init', {}, /holds a knowledge base already/);
    assert.deepEqual(await w('check', {}), { valid: true, index_current: true });
    await c.close();
    fs.rmSync(dir, { recursive: true, force: true });

    // init where there is no base: a base the other tools then fill
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'dtk-mcp-init-'));
    const c2 = await connect(empty);
    const w2 = async (name, args) => {
        const x = await c2.callTool({ name, arguments: args });
        assert.equal(x.isError, false, `${name}: ${JSON.stringify(x.content)}`);
        return x.structuredContent;
    };
    r = await w2('init', { lang: 'en', domain: 'fresh' });
    assert.deepEqual(r, { domain: 'fresh', lang: 'en',
                          files: ['insights/_domain.yaml', 'insights/_sources.yaml',
                                  'insights/_crystallizations.yaml', 'INDEX.md'] });
    await w2('add_source', { id: 's1', title: 'One' });
    assert.deepEqual(await w2('check', {}), { valid: true, index_current: true });
    await c2.close();
    fs.rmSync(empty, { recursive: true, force: true });
});

// ---- raw protocol, below the SDK ----

function raw(lines, { bigLine = 0 } = {}) {
    return new Promise((resolve) => {
        const p = spawn(DTK, ['-C', base, 'mcp']);
        let out = '', err = '';
        p.stdout.on('data', (d) => { out += d; });
        p.stderr.on('data', (d) => { err += d; });
        p.on('close', (code) => resolve({ code, out, err }));
        (async () => {
            for (const l of lines) {
                if (l === 'BIG') {
                    const chunk = Buffer.alloc(1 << 20, 0x61);
                    for (let i = 0; i < bigLine; i++)
                        if (!p.stdin.write(chunk))
                            await new Promise((r) => p.stdin.once('drain', r));
                    p.stdin.write('\n');
                } else {
                    p.stdin.write(l + '\n');
                }
            }
            p.stdin.end();
        })();
    });
}

test('raw: parse errors, invalid requests, notifications, EOF', async () => {
    const r = await raw([
        'garbage',
        '[1,2]',
        '{"jsonrpc":"1.0","id":1,"method":"ping"}',
        '{"jsonrpc":"2.0","id":2}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","method":"nope"}',
        '{"jsonrpc":"2.0","id":3,"method":"ping"}',
        '{"jsonrpc":"2.0","id":"early","method":"tools/list"}',
        '{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"protocolVersion":"1999-01-01"}}',
        '{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}',
        '{"jsonrpc":"2.0","id":5,"method":"nope/nope"}',
        '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[]}',
    ]);
    assert.equal(r.code, 0);
    const msgs = r.out.trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(msgs.map((m) => m.error ? m.error.code : 'ok'),
                     [-32700, -32600, -32600, -32600, 'ok', -32600, 'ok', -32600, -32601,
                      -32602]);
    assert.deepEqual(msgs[4], { jsonrpc: '2.0', id: 3, result: {} });
    // before initialize, only ping is answered
    assert.equal(msgs[5].id, 'early');
    assert.match(msgs[5].error.message, /send initialize first/);
    assert.equal(msgs[6].result.protocolVersion, '2025-11-25');
    // a second initialize is refused: the session keeps its version
    assert.match(msgs[7].error.message, /initialized already/);
});

test('raw: a message over 16 MiB is refused, and the server goes on', async () => {
    const r = await raw(['BIG', '{"jsonrpc":"2.0","id":1,"method":"ping"}'], { bigLine: 17 });
    assert.equal(r.code, 0);
    const msgs = r.out.trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.equal(msgs.length, 2);
    assert.equal(msgs[0].error.code, -32600);
    assert.deepEqual(msgs[1], { jsonrpc: '2.0', id: 1, result: {} });
    assert.match(r.err, /refused/);
});

test('a queued request whose notifications/cancelled is waiting never runs', async () => {
    const dir = copyBase();
    const transport = new StdioClientTransport({ command: DTK, args: ['-C', dir, 'mcp'],
        env: { ...getDefaultEnvironment(), XDG_CACHE_HOME: dir + '.cache' } });
    const ac = new AbortController();
    const sent = [];
    const send = transport.send.bind(transport);
    transport.send = async (msg, opts) => {
        await send(msg, opts);
        sent.push(msg);
        // cancel the cite as soon as it is on its way: the writes before it
        // are still running, so it waits in the server's queue
        if (msg.method === 'tools/call' && msg.params.name === 'cite')
            ac.abort('not needed');
    };
    const c = new Client({ name: 'dtk-test', version: '1.0.0' });
    await c.connect(transport);
    const uses = [1, 2, 3].map(() => c.callTool({ name: 'use', arguments: { ids: 'alpha-001' } }));
    const cite = c.callTool({ name: 'cite', arguments: { ids: 'beta-001' } }, undefined,
                            { signal: ac.signal });
    await assert.rejects(cite);
    for (const u of uses)
        assert.equal((await u).isError, false);
    const citeMsg = sent.find((m) => m.params && m.params.name === 'cite');
    assert.ok(citeMsg, 'the cite was sent');
    assert.ok(sent.some((m) => m.method === 'notifications/cancelled' &&
                               m.params.requestId === citeMsg.id), 'and cancelled');
    await c.ping(); // the server goes on
    const e = (await c.callTool({ name: 'show', arguments: { target: 'beta-001' } }))
        .structuredContent;
    assert.equal(e.cited, 1, 'the cancelled cite did not run');
    assert.equal((await c.callTool({ name: 'show', arguments: { target: 'alpha-001' } }))
        .structuredContent.used, 6, 'the three uses did');
    await c.close();
    fs.rmSync(dir, { recursive: true, force: true });
});

// Sends lines to a server, waits for `answers` response lines, then reads
// its peak resident memory (VmHWM, KiB) before ending its input.
function peakRss(lines, answers) {
    return new Promise((resolve, reject) => {
        // under AddressSanitizer, freed memory is held in quarantine: the
        // allocator measured is the one of a build without it
        const env = { ...process.env, ASAN_OPTIONS: [process.env.ASAN_OPTIONS,
                      'quarantine_size_mb=0'].filter(Boolean).join(':') };
        const p = spawn(DTK, ['-C', base, 'mcp'], { env });
        let out = '', n = 0, done = false;
        p.stdout.on('data', (d) => {
            out += d;
            n = out.split('\n').length - 1;
            if (n >= answers && !done) {
                done = true;
                const st = fs.readFileSync(`/proc/${p.pid}/status`, 'utf8');
                const kib = Number(/VmHWM:\s+(\d+) kB/.exec(st)[1]);
                p.stdin.end();
                p.on('close', () => resolve({ kib, out }));
            }
        });
        p.on('error', reject);
        (async () => {
            for (const l of lines)
                if (!p.stdin.write(l + '\n'))
                    await new Promise((r) => p.stdin.once('drain', r));
        })();
    });
}

test('memory: bounded by the message limit, whatever the message or the batch', async () => {
    const init = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}';
    const idle = await peakRss([init], 1);
    // one line just under 16 MiB of empty objects: refused before parsing
    const objs = '[' + '{},'.repeat(((16 << 20) - 8) / 3) + '{}]';
    const big = await peakRss([init, objs], 2);
    assert.match(big.out.split('\n')[1], /"code":-32600/);
    // a batch of 3,000 show calls: the answers are written as they are made
    const batch = '[' + Array.from({ length: 3000 }, (_, i) =>
        `{"jsonrpc":"2.0","id":${i + 1},"method":"tools/call","params":{"name":"show",` +
        '"arguments":{"target":"beta"}}}').join(',') + ']';
    const shows = await peakRss([init, batch], 2);
    const reply = shows.out.split('\n')[1];
    assert.equal(JSON.parse(reply).length, 3000);
    assert.ok(reply.length > 8 << 20, `the batch's answer is ${reply.length} bytes`);
    const mib = (k) => (k / 1024).toFixed(1);
    console.log(`peak RSS: idle ${mib(idle.kib)} MiB, 16 MiB of {} ${mib(big.kib)} MiB, ` +
                `3000 shows (${(reply.length / 1048576).toFixed(0)} MiB answer) ${mib(shows.kib)} MiB`);
    // the limit's two copies (the input and the line) and no more
    assert.ok(big.kib - idle.kib < 48 * 1024, `16 MiB line: ${big.kib} KiB`);
    assert.ok(shows.kib - idle.kib < 24 * 1024, `3000 shows: ${shows.kib} KiB`);
});
