// client.mjs drives `repoprep serve OUT` over stdio with the official MCP
// TypeScript SDK client, as an MCP client application would, and fails on
// anything that client refuses. serve/tsclient_test.go runs it:
//
//   node client.mjs REPOPREP OUT CALLS.json
//
// CALLS.json is a list of {"tool", "args", "error"}: error true when the call
// must come back as a tool error (isError), false when it must succeed. The
// SDK's Client.callTool validates a result's structuredContent against the
// outputSchema that tools/list declared for the tool (with Ajv), and throws
// when a tool that declares one answers without it; that validation is the
// point of this script. It also checks that the validation is live (a
// damaged copy of a real result must be refused) and that every tool that
// declares an outputSchema was called and succeeded at least once.
//
// Each result is printed on stdout as one JSON line, {"tool", "text",
// "structured", "isError"}, for the Go test to check further. Any failure
// is printed on stderr and exits 1.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [bin, out, callsFile] = process.argv.slice(2);
if (!bin || !out || !callsFile) {
  console.error('usage: node client.mjs REPOPREP OUT CALLS.json');
  process.exit(2);
}
const calls = JSON.parse(readFileSync(callsFile, 'utf8'));

const failures = [];
const fail = (msg) => failures.push(msg);

const transport = new StdioClientTransport({
  command: bin,
  args: ['serve', '-q', out],
  stderr: 'pipe',
  env: { REPOPREP_TOKENS_CACHE: 'off' },
});
let serverLog = '';
transport.stderr?.on('data', (chunk) => { serverLog += chunk; });

const client = new Client({ name: 'repoprep-tsclient-test', version: '1.0.0' });
try {
  await client.connect(transport);
  const { tools } = await client.listTools(); // caches a validator per outputSchema
  const structured = tools.filter((t) => t.outputSchema).map((t) => t.name);
  if (structured.length === 0) {
    fail('no tool declares an outputSchema');
  }
  for (const name of structured) {
    if (!client.getToolOutputValidator(name)) {
      fail(`the SDK compiled no validator for ${name}'s outputSchema`);
    }
  }

  const succeeded = new Set();
  for (const call of calls) {
    const what = `${call.tool} ${JSON.stringify(call.args)}`;
    let res;
    try {
      res = await client.callTool({ name: call.tool, arguments: call.args });
    } catch (err) {
      fail(`${what}: ${err.message}`); // the SDK's validation throws here
      continue;
    }
    const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
    if (Boolean(res.isError) !== Boolean(call.error)) {
      fail(`${what}: isError ${Boolean(res.isError)}, want ${Boolean(call.error)}: ${text.slice(0, 300)}`);
    }
    if (!res.isError) {
      succeeded.add(call.tool);
      // The live check: the validator that passed this result must refuse
      // it once a required property is gone.
      const validate = client.getToolOutputValidator(call.tool);
      if (validate && res.structuredContent) {
        const schema = tools.find((t) => t.name === call.tool).outputSchema;
        for (const key of schema.required ?? []) {
          const damaged = { ...res.structuredContent };
          delete damaged[key];
          if (validate(damaged).valid) {
            fail(`${what}: the validator accepts structuredContent without required "${key}"`);
          }
        }
      }
    }
    process.stdout.write(JSON.stringify({ tool: call.tool, text, structured: res.structuredContent ?? null, isError: Boolean(res.isError) }) + '\n');
  }
  for (const name of structured) {
    if (!succeeded.has(name)) {
      fail(`${name} declares an outputSchema but no call to it succeeded: add one to the calls`);
    }
  }
} catch (err) {
  fail(`session: ${err.stack ?? err}`);
} finally {
  await client.close().catch(() => {});
}

if (failures.length > 0) {
  console.error(failures.join('\n'));
  if (serverLog) {
    console.error('--- server log ---\n' + serverLog.slice(-4000));
  }
  process.exit(1);
}
