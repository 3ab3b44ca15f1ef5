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

async function connect(dir) {
    // dtk show's links cache outside the user's ~/.cache (docs/design.md)
    const env = { ...getDefaultEnvironment(),
                  XDG_CACHE_HOME: process.env.XDG_CACHE_HOME || path.join(dir + '.cache') };
    const transport = new StdioClientTransport({ command: DTK, args: ['-C', dir, 'mcp'],
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
    assert.deepEqual(await call('next_id', { node: 'alpha' }), { id: 'alpha-004' });
    assert.deepEqual(await call('check', {}), { valid: true, index_current: true });
    const p = await call('crystallize_plan', { date: '2026-08-01' });
    assert.equal(p.date, '2026-08-01');
});

test('a refused call is a tool error with the messages', async () => {
    let r = await client.callTool({ name: 'show', arguments: { target: 'alpah' } });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /no node or entry 'alpah'; did you mean 'alpha'\?/);
    const broken = copyBase();
    fs.writeFileSync(path.join(broken, 'insights/gamma.yaml'), 'node: gamma\nbloom: [\n');
    const c2 = await connect(broken);
    r = await c2.callTool({ name: 'check', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /^insights\/gamma\.yaml:3:1: error: /m);
    await c2.close();
    fs.rmSync(broken, { recursive: true, force: true });
});

test('unknown tool and bad arguments are JSON-RPC errors', async () => {
    let e = await rpcError(client.callTool({ name: 'nope', arguments: {} }));
    assert.equal(e.code, ErrorCode.InvalidParams);
    e = await rpcError(client.callTool({ name: 'show', arguments: {} }));
    assert.equal(e.code, ErrorCode.InvalidParams);
    e = await rpcError(client.callTool({ name: 'search', arguments: { query: 'x', limit: 0 } }));
    assert.equal(e.code, ErrorCode.InvalidParams);
    e = await rpcError(client.callTool({ name: 'list', arguments: { confidence: 'HIGH' } }));
    assert.equal(e.code, ErrorCode.InvalidParams);
    e = await rpcError(client.callTool({ name: 'list', arguments: { bogus: 1 } }));
    assert.equal(e.code, ErrorCode.InvalidParams);
});

test('resources: INDEX.md and every node file, read-only', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri),
                     ['dtk://index', 'dtk://node/alpha', 'dtk://node/beta', 'dtk://node/gamma']);
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
    assert.deepEqual(await call('next_id', { node: 'gamma' }), { id: 'gamma-008' });
    fs.writeFileSync(f, before);
    assert.deepEqual(await call('next_id', { node: 'gamma' }), { id: 'gamma-001' });
});

// ---- the write tools, on a base of their own ----

// Returns every file of the base's insights/ and INDEX.md, as bytes.
function snapshot(dir) {
    const files = { 'INDEX.md': fs.readFileSync(path.join(dir, 'INDEX.md')) };
    for (const f of fs.readdirSync(path.join(dir, 'insights')).sort())
        files[f] = fs.readFileSync(path.join(dir, 'insights', f));
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
    for (const n of ['add', 'add_source', 'use', 'cite', 'close', 'verify', 'review', 'relate'])
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
    assert.match(dry.diff, /-    used: 3\n\+    used: 4/);
    sameBytes(before, snapshot(dir));

    const e = await w('add', { node: 'beta', title: 'PP across pods', claim: 'Pipeline stages.',
                               source: 'paper-a', confidence: 'low', relates: ['alpha-002'] });
    assert.equal(e.id, 'beta-003');
    assert.deepEqual(e.relates, ['alpha-002']);
    assert.match(fs.readFileSync(path.join(dir, 'insights/beta.yaml'), 'utf8'), /id: beta-003/);
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
        '    created: 2026-02-01\n', '    created: 2026-02-01\n    revised: 2026-07-05\n'));
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
        '{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"protocolVersion":"1999-01-01"}}',
        '{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}',
        '{"jsonrpc":"2.0","id":5,"method":"nope/nope"}',
        '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[]}',
    ]);
    assert.equal(r.code, 0);
    const msgs = r.out.trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(msgs.map((m) => m.error ? m.error.code : 'ok'),
                     [-32700, -32600, -32600, -32600, 'ok', 'ok', 'ok', -32601, -32602]);
    assert.deepEqual(msgs[4], { jsonrpc: '2.0', id: 3, result: {} });
    assert.equal(msgs[5].result.protocolVersion, '2025-11-25');
    assert.equal(msgs[6].result.protocolVersion, '2024-11-05');
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
