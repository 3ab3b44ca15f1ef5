// http_test.mjs: 'dtk mcp --http' (Streamable HTTP) on loopback: the
// official conformance suite's scenarios that apply to dtk, the official
// SDK's Streamable HTTP client (tools, a write, prompts, completion,
// sessions), stdio and HTTP answering the same bytes, and hostile requests.
//   DTK=path/to/dtk DTK_SRC=path/to/source node --test tests/mcp/http_test.mjs
// (run from tests/mcp: the conformance suite runs on node_modules' Node 22)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const DTK = process.env.DTK;
const SRC = process.env.DTK_SRC;
assert.ok(DTK && SRC, 'DTK and DTK_SRC must be set');

// A copy of the shipped base (insights/ and INDEX.md), or of the fixture.
function copyBase(fixture) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dtk-mcp-http-'));
    if (fixture) {
        fs.cpSync(path.join(SRC, 'tests/fixtures/base'), dir, { recursive: true });
    } else {
        fs.cpSync(path.join(SRC, 'insights'), path.join(dir, 'insights'), { recursive: true });
        fs.copyFileSync(path.join(SRC, 'INDEX.md'), path.join(dir, 'INDEX.md'));
    }
    return dir;
}

function env(dir) {
    return { ...process.env, XDG_CACHE_HOME: dir + '.cache' };
}

// Starts dtk mcp --http on any free loopback port; resolves once it listens.
function serve(dir, args = []) {
    return new Promise((resolve, reject) => {
        const proc = spawn(DTK, ['-C', dir, 'mcp', '--http', '0', ...args],
                           { env: env(dir), stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        const exited = new Promise((r) => proc.on('exit', (code, sig) => r({ code, sig })));
        proc.stderr.on('data', (d) => {
            err += d;
            const m = /listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(err);
            if (m && !proc.url) {
                proc.url = m[1];
                resolve({ proc, url: m[1], port: Number(m[2]), stderr: () => err, exited });
            }
        });
        exited.then((x) => reject(new Error(`dtk exited ${JSON.stringify(x)}: ${err}`)));
    });
}

// Stops a server as a service manager does (SIGTERM): it exits 0.
async function stop(s) {
    s.proc.kill('SIGTERM');
    const { code } = await s.exited;
    assert.equal(code, 0, s.stderr());
    assert.match(s.stderr(), /stopped/);
}

// One HTTP request on a connection of its own: resolves {status, headers, body}
// (or {error} when the server closes the connection without an answer).
function request(port, { method = 'POST', headers = {}, body, path: p = '/mcp' } = {}) {
    return new Promise((resolve) => {
        const h = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
                    Connection: 'close', ...headers };
        if (body !== undefined && !('Content-Length' in h))
            h['Content-Length'] = Buffer.byteLength(body);
        const r = http.request({ host: '127.0.0.1', port, method, path: p, headers: h, agent: false },
            (res) => {
                let data = '';
                res.setEncoding('utf8');
                res.on('data', (d) => { data += d; });
                res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
            });
        r.on('error', (e) => resolve({ error: e.code || String(e) }));
        if (body !== undefined)
            r.write(body);
        r.end();
    });
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const PING = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });

// Returns the files of dir's insights/ and INDEX.md, by name.
function snapshot(dir) {
    const files = { 'INDEX.md': fs.readFileSync(path.join(dir, 'INDEX.md')) };
    for (const f of fs.readdirSync(path.join(dir, 'insights')))
        files[f] = fs.readFileSync(path.join(dir, 'insights', f));
    return files;
}

function cleanup(dir) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(dir + '.cache', { recursive: true, force: true });
}

// ---- the official conformance suite ----

// The scenarios that test a server without the reference server's own
// fixtures (docs/agents.md lists the others and why they do not apply).
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'prompts-list',
                   'logging-set-level', 'completion-complete', 'server-sse-multiple-streams',
                   'dns-rebinding-protection'];

test('the conformance suite (@modelcontextprotocol/conformance) passes its scenarios', async () => {
    const dir = copyBase();
    const s = await serve(dir);
    const node = path.resolve('node_modules/node/bin/node');
    const cli = path.resolve('node_modules/@modelcontextprotocol/conformance/dist/index.js');
    try {
        for (const scenario of SCENARIOS) {
            const out = await new Promise((resolve) => {
                execFile(node, [cli, 'server', '--url', s.url, '--scenario', scenario],
                         { timeout: 120000 }, (e, stdout, stderr) =>
                             resolve({ code: e ? e.code : 0, text: stdout + stderr }));
            });
            assert.equal(out.code, 0, `${scenario}:\n${out.text}`);
            assert.match(out.text, /Passed: (\d+)\/\1, 0 failed/, `${scenario}:\n${out.text}`);
        }
    } finally {
        await stop(s);
        cleanup(dir);
    }
});

// ---- the official SDK's client ----

async function sdkClient(url) {
    const c = new Client({ name: 'dtk-http-test', version: '1.0.0' });
    const t = new StreamableHTTPClientTransport(new URL(url));
    await c.connect(t);
    return { c, t };
}

test('the SDK over HTTP: tools, a read and a write, prompts, completion, sessions', async () => {
    const dir = copyBase(true);
    const s = await serve(dir);
    try {
        const { c, t } = await sdkClient(s.url);
        assert.match(t.sessionId, /^[0-9a-f]{32}$/);
        const caps = c.getServerCapabilities();
        assert.ok(caps.tools && caps.resources && caps.prompts && caps.completions && caps.logging);
        const names = (await c.listTools()).tools.map((x) => x.name);
        for (const n of ['show', 'search', 'use', 'add'])
            assert.ok(names.includes(n), n);

        const hit = await c.callTool({ name: 'show', arguments: { target: 'alpha-001' } });
        assert.equal(hit.isError, false);
        assert.equal(hit.structuredContent.id, 'alpha-001');
        const before = hit.structuredContent.used;

        // a second client, its own session: writes from both, serialized by
        // the base's lock, none lost
        const other = await sdkClient(s.url);
        assert.notEqual(other.t.sessionId, t.sessionId);
        const uses = [];
        for (let i = 0; i < 5; i++)
            for (const x of [c, other.c])
                uses.push(x.callTool({ name: 'use', arguments: { ids: 'alpha-001' } }));
        for (const u of await Promise.all(uses))
            assert.equal(u.isError, false, JSON.stringify(u));
        const after = (await c.callTool({ name: 'show', arguments: { target: 'alpha-001' } }))
            .structuredContent.used;
        assert.equal(after, before + 10);
        // each use is a record of its own (insights/_uses/), none lost
        assert.equal(fs.readdirSync(path.join(dir, 'insights/_uses'))
                         .filter((f) => f.endsWith('.yaml')).length, 10);

        // prompts and their arguments completed from the base
        const prompts = (await c.listPrompts()).prompts.map((p) => p.name);
        assert.deepEqual(prompts, ['working_loop', 'monthly_review']);
        const loop = await c.getPrompt({ name: 'working_loop',
                                         arguments: { topic: 'attention kernels', node: 'alpha' } });
        assert.match(loop.messages[0].content.text, /search/);
        assert.match(loop.messages[0].content.text, /The node: alpha/);
        const review = await c.getPrompt({ name: 'monthly_review', arguments: { date: '2026-12-01' } });
        assert.match(review.messages[0].content.text, /crystallize_plan.*\n[^]*2026-12-01/);
        await assert.rejects(c.getPrompt({ name: 'working_loop', arguments: {} }), /needs argument topic/);
        await assert.rejects(c.getPrompt({ name: 'working_loop', arguments: { topic: 'x', node: 'nope' } }),
                             /no node 'nope'/);
        await assert.rejects(c.getPrompt({ name: 'monthly_review', arguments: { since: 'May' } }),
                             /YYYY-MM-DD/);
        let r = await c.complete({ ref: { type: 'ref/prompt', name: 'working_loop' },
                                   argument: { name: 'node', value: 'al' } });
        assert.deepEqual(r.completion.values, ['alpha']);
        r = await c.complete({ ref: { type: 'ref/resource', uri: 'dtk://node/{name}' },
                               argument: { name: 'name', value: '' } });
        assert.deepEqual(r.completion.values, ['alpha', 'beta', 'gamma']);
        r = await c.complete({ ref: { type: 'ref/prompt', name: 'monthly_review' },
                               argument: { name: 'since', value: '20' } });
        assert.ok(r.completion.values.length > 0);
        assert.ok(r.completion.values.every((d) => /^\d{4}-\d\d-\d\d$/.test(d)));
        assert.deepEqual([...r.completion.values].sort().reverse(), r.completion.values, 'newest first');
        assert.deepEqual(await c.setLoggingLevel('warning'), {});

        // DELETE ends the session: its id is then unknown (404)
        const sid = t.sessionId;
        await t.terminateSession();
        const gone = await request(s.port, { body: PING, headers: { 'Mcp-Session-Id': sid } });
        assert.equal(gone.status, 404);
        await c.close();
        await other.c.close();
    } finally {
        await stop(s);
        cleanup(dir);
    }
});

test('HTTP details: 202 for a notification, GET 405, 2026-07-28 without a session, SSE', async () => {
    const dir = copyBase(true);
    const s = await serve(dir);
    try {
        const init = await request(s.port, { body: INIT });
        assert.equal(init.status, 200);
        const sid = init.headers['mcp-session-id'];
        assert.match(sid, /^[0-9a-f]{32}$/);
        const h = { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' };
        const note = await request(s.port, { headers: h,
            body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' });
        assert.equal(note.status, 202);
        assert.equal(note.body, '');
        assert.equal((await request(s.port, { method: 'GET', headers: h })).status, 405);
        assert.equal((await request(s.port, { body: PING, path: '/other' })).status, 404);
        assert.equal((await request(s.port, { body: PING,
            headers: { ...h, 'MCP-Protocol-Version': '1999-01-01' } })).status, 400);
        assert.equal((await request(s.port, { body: PING,
            headers: { ...h, 'Content-Type': 'text/plain' } })).status, 415);
        const sse = await request(s.port, { body: PING, headers: { ...h, Accept: 'text/event-stream' } });
        assert.equal(sse.headers['content-type'], 'text/event-stream');
        assert.match(sse.body, /^id: \d+\nevent: message\ndata: \{"jsonrpc":"2.0","id":2,"result":\{\}\}\n\n$/);
        // no session, each request naming its version in _meta
        const modern = await request(s.port, { headers: { 'MCP-Protocol-Version': '2026-07-28' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: {
                name: 'show', arguments: { target: 'alpha-001' },
                _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }) });
        assert.equal(modern.status, 200);
        assert.equal(modern.headers['mcp-session-id'], undefined);
        assert.equal(JSON.parse(modern.body).result.structuredContent.id, 'alpha-001');
        // a legacy request without a session is refused as on stdio, with 400
        // Bad Request (Streamable HTTP's answer to a request lacking its session)
        const loneReply = await request(s.port, { body: JSON.stringify({ jsonrpc: '2.0',
            id: 4, method: 'tools/list' }) });
        assert.equal(loneReply.status, 400);
        const lone = JSON.parse(loneReply.body);
        assert.equal(lone.error.code, -32600);
        // DELETE without a session, then of an unknown one
        assert.equal((await request(s.port, { method: 'DELETE' })).status, 400);
        assert.equal((await request(s.port, { method: 'DELETE',
            headers: { 'Mcp-Session-Id': 'f'.repeat(32) } })).status, 404);
    } finally {
        await stop(s);
        cleanup(dir);
    }
});

test('SIGINT amid writes: exit 0, each write whole, the base valid', async () => {
    const dir = copyBase(true);
    const s = await serve(dir);
    const { c } = await sdkClient(s.url);
    const show = async () => (await c.callTool({ name: 'show', arguments: { target: 'alpha-001' } }))
        .structuredContent.used;
    const before = await show();
    const calls = [];
    for (let i = 0; i < 20; i++)
        calls.push(c.callTool({ name: 'use', arguments: { ids: 'alpha-001' } }).then(() => 1, () => 0));
    await calls[0];
    s.proc.kill('SIGINT');
    const answered = (await Promise.all(calls)).reduce((a, b) => a + b, 0);
    const { code } = await s.exited;
    assert.equal(code, 0, s.stderr());
    await c.close().catch(() => {});
    const check = await new Promise((resolve) => execFile(DTK, ['-C', dir, 'check'], { env: env(dir) },
        (e, stdout, stderr) => resolve({ code: e ? e.code : 0, text: stdout + stderr })));
    assert.equal(check.code, 0, check.text);
    const uses = path.join(dir, 'insights/_uses');
    const used = before + (fs.existsSync(uses)
        ? fs.readdirSync(uses).filter((f) => f.endsWith('.yaml')).length : 0);
    assert.ok(used >= before + answered && used <= before + 20, `used ${used}, ${answered} answered`);
    cleanup(dir);
});

// ---- the same bytes on stdio and on HTTP ----

// Sends each of msgs (objects) to dtk mcp on stdio in dir, one line each;
// resolves the response lines.
function stdio(dir, msgs) {
    return new Promise((resolve) => {
        const p = spawn(DTK, ['-C', dir, 'mcp'], { env: env(dir) });
        let out = '';
        p.stdout.setEncoding('utf8');
        p.stdout.on('data', (d) => { out += d; });
        p.on('exit', () => resolve(out.trimEnd().split('\n')));
        p.stdin.end(msgs.map((m) => JSON.stringify(m) + '\n').join(''));
    });
}

test('stdio and HTTP answer the same bytes to the same read calls on copies of a base', async () => {
    const a = copyBase(), b = copyBase();
    const nodes = fs.readdirSync(path.join(a, 'insights'))
        .filter((f) => !f.startsWith('_')).map((f) => f.replace(/\.yaml$/, ''));
    const call = (name, args) => ({ method: 'tools/call', params: { name, arguments: args } });
    const calls = [
        { method: 'tools/list' },
        { method: 'resources/list' },
        { method: 'resources/templates/list' },
        { method: 'prompts/list' },
        call('list', {}),
        call('list', { limit: 100 }),
        call('list', { node: nodes[1], since: '2025-01-01' }),
        call('search', { query: 'nccl' }),
        call('search', { query: '训练' }),
        call('show', { target: nodes[0] }),
        call('show', { target: `${nodes[2]}-001` }),
        call('similar', { text: 'all-reduce bandwidth on NVLink' }),
        call('check', {}),
        call('crystallize_plan', {}),
        call('show', { target: 'no-such-node' }),
        { method: 'resources/read', params: { uri: 'dtk://index' } },
        { method: 'resources/read', params: { uri: `dtk://node/${nodes[3]}` } },
        { method: 'prompts/get', params: { name: 'working_loop', arguments: { topic: 'x', node: nodes[0] } } },
        { method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'monthly_review' },
                                                   argument: { name: 'since', value: '2025' } } },
        { method: 'completion/complete', params: { ref: { type: 'ref/resource', uri: 'dtk://node/{name}' },
                                                   argument: { name: 'name', value: 'tr' } } },
    ].map((m, i) => ({ jsonrpc: '2.0', id: 10 + i, ...m }));
    const init = JSON.parse(INIT);
    const lines = await stdio(a, [init, { jsonrpc: '2.0', method: 'notifications/initialized' }, ...calls]);
    const s = await serve(b);
    try {
        const first = await request(s.port, { body: INIT });
        const h = { 'Mcp-Session-Id': first.headers['mcp-session-id'], 'MCP-Protocol-Version': '2025-11-25' };
        const bodies = [first.body];
        for (const m of calls)
            bodies.push((await request(s.port, { body: JSON.stringify(m), headers: h })).body);
        assert.equal(lines.length, calls.length + 1);
        for (let i = 0; i < lines.length; i++)
            assert.ok(bodies[i] === lines[i], `message ${i}: ${bodies[i].slice(0, 200)}`);
        assert.ok(lines.join('').length > 100000, 'the answers are not trivial');
    } finally {
        await stop(s);
        cleanup(a);
        cleanup(b);
    }
});

// ---- hostile requests ----

// Resolves when socket sock is closed by the server (true), or false when
// ms pass first.
function closedWithin(sock, ms) {
    return new Promise((resolve) => {
        const t = setTimeout(() => resolve(false), ms);
        sock.on('close', () => { clearTimeout(t); resolve(true); });
        sock.on('error', () => {});
    });
}

function connect(port) {
    return new Promise((resolve) => {
        const sock = net.connect(port, '127.0.0.1', () => resolve(sock));
        sock.on('error', () => {});
    });
}

test('hostile requests are refused, the base untouched and the server serving', async () => {
    const dir = copyBase(true);
    const pristine = snapshot(dir);
    const s = await serve(dir, ['--timeout', '1']);
    try {
        // DNS rebinding: a Host or Origin not of loopback
        for (const headers of [{ Host: 'evil.example.com' }, { Host: `evil.example.com:${s.port}` },
                               { Origin: 'http://evil.example.com' }, { Origin: 'null' },
                               { Origin: `http://localhost.evil.example.com:${s.port}` }]) {
            const r = await request(s.port, { body: INIT, headers });
            assert.equal(r.status, 403, JSON.stringify(headers));
            assert.equal(r.headers['mcp-session-id'], undefined);
        }
        for (const headers of [{ Host: `localhost:${s.port}`, Origin: `http://localhost:${s.port}` },
                               { Host: `[::1]:${s.port}` }, { Origin: `https://127.0.0.1` }])
            assert.equal((await request(s.port, { body: PING, headers })).status, 200, JSON.stringify(headers));

        // over 16 MiB: refused by its length before it is read, or as it
        // comes when it has no length (chunked)
        const big = await request(s.port, { body: '', headers: { 'Content-Length': String(17 << 20) } });
        assert.equal(big.status, 413);
        const chunked = await new Promise((resolve) => {
            const r = http.request({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/mcp',
                agent: false, headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } },
            (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
            r.on('error', () => resolve('closed'));
            const chunk = Buffer.alloc(1 << 20, 0x20);
            for (let i = 0; i < 17; i++)
                r.write(chunk);
            r.end();
        });
        assert.ok(chunked === 413 || chunked === 'closed', `chunked: ${chunked}`);

        // slow: headers that stop, headers that trickle, a body that trickles
        let sock = await connect(s.port);
        sock.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        assert.ok(await closedWithin(sock, 10000), 'a request whose headers stop is cut off');
        sock = await connect(s.port);
        sock.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
        let drip = setInterval(() => sock.write('a'), 300);
        assert.ok(await closedWithin(sock, 10000), 'headers that trickle in are cut off');
        clearInterval(drip);
        sock = await connect(s.port);
        sock.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
                   `Content-Length: 1000\r\n\r\n{`);
        const trickle = setInterval(() => sock.write(' '), 300);
        const cut = await closedWithin(sock, 10000);
        clearInterval(trickle);
        assert.ok(cut, 'a body that trickles in is cut off after the timeout');

        // the server goes on, and nothing was written
        assert.equal((await request(s.port, { body: INIT })).status, 200);
        assert.deepEqual(snapshot(dir), pristine);
    } finally {
        await stop(s);
        cleanup(dir);
    }
});

test('at most 64 connections at once: a 65th is closed unanswered', async () => {
    const dir = copyBase(true);
    const s = await serve(dir);
    try {
        const socks = [];
        for (let i = 0; i < 64; i++)
            socks.push(await connect(s.port));
        const extra = await connect(s.port);
        let answer = '';
        extra.on('data', (d) => { answer += d; });
        extra.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${PING.length}\r\n` +
                    `Content-Type: application/json\r\nConnection: close\r\n\r\n${PING}`);
        assert.ok(await closedWithin(extra, 5000), 'the 65th is closed');
        assert.equal(answer, '');
        // the 64 were not: each is answered
        const one = socks.pop();
        let got = '';
        one.on('data', (d) => { got += d; });
        const done = new Promise((r) => one.on('end', r));
        one.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${PING.length}\r\n` +
                  `Content-Type: application/json\r\nConnection: close\r\n\r\n${PING}`);
        await done;
        assert.match(got, /^HTTP\/1.1 200 OK\r\n[^]*"result":\{\}\}$/);
        for (const x of socks)
            x.destroy();
        await new Promise((r) => setTimeout(r, 300));
        assert.equal((await request(s.port, { body: INIT })).status, 200);
    } finally {
        await stop(s);
        cleanup(dir);
    }
});

test('a bearer token: required when given, needed beyond loopback', async () => {
    const dir = copyBase(true);
    const tok = path.join(dir + '.cache-token');
    fs.writeFileSync(tok, 's3cret-token-0123456789abcdef\n');
    const s = await serve(dir, ['--token-file', tok]);
    try {
        let r = await request(s.port, { body: INIT });
        assert.equal(r.status, 401);
        assert.equal(r.headers['www-authenticate'], 'Bearer');
        r = await request(s.port, { body: INIT, headers: { Authorization: 'Bearer s3cret-token-0123456789abcdeX' } });
        assert.equal(r.status, 401);
        r = await request(s.port, { body: INIT, headers: { Authorization: 'Bearer s3cret-token-0123456789abcdef' } });
        assert.equal(r.status, 200);
        // the SDK's client with the token as a static header (requestInit)
        const c = new Client({ name: 'dtk-http-test', version: '1.0.0' });
        await c.connect(new StreamableHTTPClientTransport(new URL(s.url), { requestInit:
            { headers: { Authorization: 'Bearer s3cret-token-0123456789abcdef' } } }));
        assert.ok((await c.listTools()).tools.length > 20);
        await c.close();
        const bare = new Client({ name: 'dtk-http-test', version: '1.0.0' });
        await assert.rejects(bare.connect(new StreamableHTTPClientTransport(new URL(s.url))));
        // DNS rebinding is refused before the token is looked at
        r = await request(s.port, { body: INIT, headers: { Host: 'evil.example.com',
            Authorization: 'Bearer s3cret-token-0123456789abcdef' } });
        assert.equal(r.status, 403);
    } finally {
        await stop(s);
    }
    // beyond loopback without a token: refused before listening
    const run = (args) => new Promise((resolve) => {
        execFile(DTK, ['-C', dir, 'mcp', ...args], { env: env(dir) },
                 (e, stdout, stderr) => resolve({ code: e ? e.code : 0, stderr }));
    });
    let x = await run(['--http', '0.0.0.0:0']);
    assert.equal(x.code, 2);
    assert.match(x.stderr, /beyond loopback, needs --token-file/);
    fs.writeFileSync(tok, 'short\n');
    x = await run(['--http', '0', '--token-file', tok]);
    assert.equal(x.code, 2);
    assert.match(x.stderr, /at least 16/);
    x = await run(['--token-file', tok]);
    assert.equal(x.code, 2);
    assert.match(x.stderr, /--token-file goes with --http/);
    x = await run(['--http', 'localhost:80']);
    assert.equal(x.code, 2);
    assert.match(x.stderr, /--http takes \[ADDR:\]PORT/);
    fs.rmSync(tok);
    cleanup(dir);
});
