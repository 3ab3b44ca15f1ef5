// agents_test.mjs: 'dtk mcp' as agent frameworks' own MCP clients see it:
// the OpenAI Agents SDK (@openai/agents-core: MCPServerStdio, an Agent with
// two servers) and the Vercel AI SDK (@ai-sdk/mcp). No model is called: the
// tools are listed and invoked as the frameworks hand them to a model.
//   DTK=path/to/dtk DTK_SRC=path/to/source node --test tests/mcp/agents_test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, MCPServerStdio, RunContext } from '@openai/agents-core';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

const DTK = process.env.DTK;
const SRC = process.env.DTK_SRC;
assert.ok(DTK && SRC, 'DTK and DTK_SRC must be set');

const dirs = [];
function copyBase() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dtk-agents-'));
    fs.cpSync(path.join(SRC, 'tests/fixtures/base'), dir, { recursive: true });
    dirs.push(dir);
    return dir;
}
after(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

const env = (dir) => ({ PATH: process.env.PATH, HOME: process.env.HOME || '/tmp',
                        XDG_CACHE_HOME: dir + '.cache' });

function openaiServer(dir, extra = []) {
    return new MCPServerStdio({ name: path.basename(dir), command: DTK,
                                args: ['-C', dir, 'mcp', ...extra], env: env(dir) });
}

test('OpenAI Agents SDK: two prefixed servers load into one agent', async () => {
    const a = copyBase(), b = copyBase();
    const sa = openaiServer(a, ['--prefix', 'infra_']), sb = openaiServer(b, ['--prefix', 'ml_']);
    await sa.connect();
    await sb.connect();
    try {
        const agent = new Agent({ name: 'two-bases', instructions: 'x', mcpServers: [sa, sb] });
        const ctx = new RunContext({});
        const tools = await agent.getAllTools(ctx);
        const names = tools.map((t) => t.name);
        assert.ok(names.includes('infra_search') && names.includes('ml_search'), `${names}`);
        assert.ok(names.includes('infra_contradict') && names.includes('ml_add_node'));
        assert.equal(new Set(names).size, names.length);
        assert.ok(names.every((n) => /^(infra|ml)_[a-z_]+$/.test(n) && n.length <= 64));
        // a call goes to its own base
        const add = tools.find((t) => t.name === 'ml_add_source');
        const out = await add.invoke(ctx, JSON.stringify({ id: 'only-in-ml', title: 'T' }));
        assert.match(JSON.stringify(out), /only-in-ml/);
        assert.match(fs.readFileSync(path.join(b, 'insights/_sources.yaml'), 'utf8'), /only-in-ml/);
        assert.doesNotMatch(fs.readFileSync(path.join(a, 'insights/_sources.yaml'), 'utf8'),
                            /only-in-ml/);
        // messages name the prefixed tools
        const bad = tools.find((t) => t.name === 'infra_add');
        const r = JSON.stringify(await bad.invoke(ctx, JSON.stringify({
            node: 'beta', title: 't', claim: 'c', source: 'nope', confidence: 'low' })));
        assert.match(r, /the tool 'infra_add_source'/);
    } finally {
        await sa.close();
        await sb.close();
    }
});

test('OpenAI Agents SDK: without a prefix two bases collide, as the SDK says', async () => {
    const sa = openaiServer(copyBase()), sb = openaiServer(copyBase());
    await sa.connect();
    await sb.connect();
    try {
        const agent = new Agent({ name: 'two', instructions: 'x', mcpServers: [sa, sb] });
        await assert.rejects(agent.getAllTools(new RunContext({})), /Duplicate tool names/);
    } finally {
        await sa.close();
        await sb.close();
    }
});

test('OpenAI Agents SDK: the model reads argument mistakes and refusals', async () => {
    const s = openaiServer(copyBase());
    await s.connect();
    try {
        const ctx = new RunContext({});
        const tools = await new Agent({ name: 'a', instructions: 'x', mcpServers: [s] })
            .getAllTools(ctx);
        const t = (n) => tools.find((x) => x.name === n);
        let out = JSON.stringify(await t('list').invoke(ctx, JSON.stringify({ confidence: 'HIGH' })));
        assert.match(out, /argument 'confidence' got \\"HIGH\\"; it accepts one of \\"high\\", \\"medium\\", \\"low\\"/);
        assert.doesNotMatch(out, /An error occurred while running the tool/);
        out = JSON.stringify(await t('show').invoke(ctx, JSON.stringify({ target: 'alpah' })));
        assert.match(out, /did you mean 'alpha'/);
        out = JSON.stringify(await t('list').invoke(ctx, JSON.stringify({ limit: 2 })));
        assert.match(out, /nextCursor/);
        const { resourceTemplates } = await s.listResourceTemplates();
        assert.equal(resourceTemplates[0].uriTemplate, 'dtk://node/{name}');
    } finally {
        await s.close();
    }
});

test('AI SDK: it discovers the 2026-07-28 protocol; argument mistakes come back as results', async () => {
    const dir = copyBase();
    const client = await createMCPClient({
        transport: new Experimental_StdioMCPTransport({ command: DTK, args: ['-C', dir, 'mcp'],
                                                        env: env(dir) }) });
    try {
        assert.equal(client.initializeResult.protocolVersion, '2026-07-28');
        assert.equal(client.serverInfo.name, 'dtk');
        assert.match(client.instructions, /search/);
        const tools = await client.tools();
        for (const n of ['show', 'list', 'search', 'contradict', 'resolve', 'stance', 'bloom',
                         'add_node'])
            assert.ok(tools[n], `tool ${n}`);
        const opts = { toolCallId: 'c1', messages: [] };
        const bad = await tools.bloom.execute({ node: 'beta', level: 'expert' }, opts);
        assert.equal(bad.isError, true);
        assert.match(bad.content[0].text, /argument 'level' got "expert"; it accepts one of "remember"/);
        const ok = await tools.search.execute({ query: 'tensor', limit: 1 }, opts);
        assert.equal(ok.isError, false);
        assert.equal(ok.structuredContent.entries[0].id, 'beta-001');
        const w = await tools.stance.execute({ node: 'beta', text: 'Stay local.' }, opts);
        assert.equal(w.structuredContent.node, 'beta');
        assert.equal(w.structuredContent.stance, 'Stay local.');
    } finally {
        await client.close();
    }
});
