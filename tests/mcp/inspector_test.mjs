// inspector_test.mjs: 'dtk mcp' driven by MCP Inspector's CLI (inspector
// --cli, 2.x, run with the Node >= 22 the lockfile installs: the npm package
// node@22), in both protocol eras: legacy (initialize) and modern
// (2026-07-28, no handshake, which does not fall back).
//   DTK=path/to/dtk DTK_SRC=path/to/source node --test tests/mcp/inspector_test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DTK = process.env.DTK;
const SRC = process.env.DTK_SRC;
assert.ok(DTK && SRC, 'DTK and DTK_SRC must be set');
const here = path.dirname(fileURLToPath(import.meta.url));
const NODE = path.join(here, 'node_modules/node/bin/node');
const INSPECTOR = path.join(here,
    'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

let base;
before(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'dtk-inspector-'));
    fs.cpSync(path.join(SRC, 'tests/fixtures/base'), base, { recursive: true });
});
after(() => fs.rmSync(base, { recursive: true, force: true }));

// Runs the Inspector's CLI in era on dtk mcp; returns {code, json, stderr}.
function inspect(era, args, extra = []) {
    return new Promise((resolve) => {
        execFile(NODE, [INSPECTOR, '--cli', '--protocol-era', era, DTK, '-C', base, 'mcp',
                        ...extra, ...args],
                 { env: { ...process.env, HOME: base + '.home', XDG_CACHE_HOME: base + '.cache' },
                   timeout: 60000 },
                 (err, stdout, stderr) => {
                     let json = null;
                     try { json = JSON.parse(stdout); } catch { /* not JSON */ }
                     resolve({ code: err ? err.code : 0, json, stdout, stderr });
                 });
    });
}

for (const era of ['legacy', 'modern']) {
    test(`inspector --cli (${era}): tools, a page, an argument mistake, the template`, async () => {
        let r = await inspect(era, ['--method', 'tools/list']);
        assert.equal(r.code, 0, r.stderr);
        const names = r.json.tools.map((t) => t.name);
        for (const n of ['show', 'search', 'contradict', 'resolve', 'stance', 'bloom', 'add_node'])
            assert.ok(names.includes(n), `${n} in ${names}`);
        r = await inspect(era, ['--method', 'tools/call', '--tool-name', 'list',
                                '--tool-arg', 'limit=2']);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.json.structuredContent.entries.length, 2);
        assert.equal(r.json.structuredContent.nextCursor, 'o2');
        if (era === 'modern')
            assert.equal(r.json._meta['io.modelcontextprotocol/serverInfo'].name, 'dtk');
        r = await inspect(era, ['--method', 'tools/call', '--tool-name', 'list',
                                '--tool-arg', 'confidence=HIGH']);
        assert.match(r.stdout, /argument 'confidence' got \\"HIGH\\"; it accepts one of/);
        assert.match(r.stdout, /"isError": true/);
        r = await inspect(era, ['--method', 'resources/templates/list']);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.json.resourceTemplates[0].uriTemplate, 'dtk://node/{name}');
    });
}

test('inspector --cli: a prefixed server', async () => {
    const r = await inspect('modern', ['--method', 'tools/list'], ['--prefix', 'kb_']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.json.tools.every((t) => t.name.startsWith('kb_')));
});
