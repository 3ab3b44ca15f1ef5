// sizes.mjs: what 'dtk mcp' answers cost an agent, in bytes and in tokens
// (o200k_base, the tokenizer of OpenAI's GPT-4o and later models, from the
// npm package gpt-tokenizer pinned in package-lock.json): tools/list under
// each tool set, and the calls of docs/agents.md's size table on the shipped
// base. Prints Markdown rows.
//
//   node sizes.mjs DTK SOURCE_DIR
//
// tools/list: the tools array as sent (what a client hands the model);
// a call: its result's text (what the model reads), and the whole response
// line (which holds the same JSON twice: structuredContent and text).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

const [dtk, src] = process.argv.slice(2);
if (!dtk || !src) {
    console.error('usage: node sizes.mjs DTK SOURCE_DIR');
    process.exit(2);
}
const base = mkdtempSync(join(tmpdir(), 'dtk-sizes-'));
cpSync(join(src, 'insights'), join(base, 'insights'), { recursive: true });
cpSync(join(src, 'INDEX.md'), join(base, 'INDEX.md'));

// Returns the response lines of a session with args asking each request.
function session(args, requests) {
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize',
                   params: { protocolVersion: '2025-11-25' } };
    const input = [init, ...requests.map((r, i) => ({ jsonrpc: '2.0', id: i + 1, ...r }))]
        .map((m) => JSON.stringify(m) + '\n').join('');
    const r = spawnSync(dtk, ['-C', base, 'mcp', ...args], { input, encoding: 'utf8',
                                                             maxBuffer: 1 << 30 });
    if (r.status !== 0)
        throw new Error(`dtk mcp ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
    return r.stdout.trimEnd().split('\n').slice(1);
}

const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
const size = (s) => `${kb(Buffer.byteLength(s))} | ${countTokens(s).toLocaleString('en')}`;

console.log('| tools/list | bytes | tokens |\n| --- | --- | --- |');
for (const [what, args] of [['every tool', []], ['`--read-only`', ['--read-only']],
                            ['`--tools search,show,sources`', ['--tools', 'search,show,sources']]]) {
    const [line] = session(args, [{ method: 'tools/list' }]);
    const tools = JSON.parse(line).result.tools;
    console.log(`| ${what} (${tools.length} tools) | ${size(JSON.stringify(tools))} |`);
}

const call = (name, args) => ({ method: 'tools/call', params: { name, arguments: args } });
const calls = [
    ['`list {}`', call('list', {})],
    ['`list {limit: 100}`', call('list', { limit: 100 })],
    ['`search {query: "nccl"}`', call('search', { query: 'nccl' })],
    ['`sources {}`', call('sources', {})],
    ['`show` an entry (collective-communication-001)', call('show', { target: 'collective-communication-001' })],
    ['`show` a node (training-parallelism)', call('show', { target: 'training-parallelism' })],
    ['`use` an entry, `dry_run`', call('use', { ids: 'collective-communication-001', dry_run: true })],
];
console.log('\n| call | text: bytes | tokens | response line |\n| --- | --- | --- | --- |');
const lines = session([], calls.map(([, r]) => r));
calls.forEach(([what], i) => {
    const text = JSON.parse(lines[i]).result.content[0].text;
    console.log(`| ${what} | ${size(text)} | ${kb(Buffer.byteLength(lines[i]))} |`);
});
rmSync(base, { recursive: true, force: true });
