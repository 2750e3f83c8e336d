// bench.mjs measures MCP servers over stdio with the official MCP
// TypeScript SDK client, as an MCP client application drives them: each
// server is spawned once and connected with Client, and tools/call
// requests go through Client.callTool (which validates structuredContent
// against the tool's outputSchema, as every client built on the SDK does).
// serve/bench_mcp_test.go runs it (make bench-mcp):
//
//   node bench.mjs PLAN.json
//
// PLAN.json: {"servers": [{"name", "command", "args", "tool", "calls": [args...]}],
// "inflight": [1, 16], "seconds": 2, "rounds": 3, "warmup": 200}.
// Every round measures every server at every in-flight level in turn, so a
// busy moment of the machine lands on all of them alike. Each measurement
// runs for the given seconds with that many calls outstanding (each worker
// sends its next call when its last one is answered), cycling through the
// server's calls. A call that fails or answers isError fails the run.
//
// Output: one JSON line per measurement on stdout: {"server", "inflight",
// "round", "calls", "seconds", "latencies_ms": [p50, p99], "bytes" (of text),
// "server_cpu_s" (the server process's CPU time, Linux only, else null),
// "client_cpu_s" (this process's)}.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [planFile] = process.argv.slice(2);
if (!planFile) {
  console.error('usage: node bench.mjs PLAN.json');
  process.exit(2);
}
const plan = JSON.parse(readFileSync(planFile, 'utf8'));

async function connect(srv) {
  const transport = new StdioClientTransport({ command: srv.command, args: srv.args, stderr: 'pipe', env: { ...process.env, ...(srv.env ?? {}) } });
  let log = '';
  transport.stderr?.on('data', (chunk) => { log = (log + chunk).slice(-4000); });
  const client = new Client({ name: 'repoprep-bench-mcp', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools(); // compiles the outputSchema validators, as clients do
  return { client, pid: transport.pid, log: () => log };
}

async function call(conn, srv, i) {
  const args = srv.calls[i % srv.calls.length];
  const res = await conn.client.callTool({ name: srv.tool, arguments: args });
  if (res.isError) {
    const text = (res.content ?? []).map((c) => c.text ?? '').join('');
    throw new Error(`${srv.name} ${srv.tool} ${JSON.stringify(args)}: ${text.slice(0, 300)}`);
  }
  let bytes = 0;
  for (const c of res.content ?? []) {
    bytes += c.text?.length ?? 0;
  }
  return bytes;
}

// serverCPU is the CPU seconds the server process has used (Linux /proc;
// null elsewhere): user plus system time, in clock ticks of 1/100 s.
function serverCPU(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

async function measure(conn, srv, inflight, seconds) {
  const lat = [];
  const cpu0 = serverCPU(conn.pid);
  const client0 = process.cpuUsage();
  let next = 0;
  let bytes = 0;
  const start = process.hrtime.bigint();
  const until = start + BigInt(Math.round(seconds * 1e9));
  const worker = async () => {
    while (process.hrtime.bigint() < until) {
      const i = next++;
      const t0 = process.hrtime.bigint();
      const n = await call(conn, srv, i);
      bytes += n;
      lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  const took = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu1 = serverCPU(conn.pid);
  const client1 = process.cpuUsage(client0);
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  return {
    calls: lat.length, seconds: took, latencies_ms: [q(0.5), q(0.99)], bytes,
    server_cpu_s: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0,
    client_cpu_s: (client1.user + client1.system) / 1e6,
  };
}

const conns = [];
try {
  for (const srv of plan.servers) {
    const conn = await connect(srv);
    conns.push(conn);
    for (let i = 0; i < (plan.warmup ?? 100); i++) {
      await call(conn, srv, i);
    }
  }
  for (let round = 1; round <= (plan.rounds ?? 1); round++) {
    for (const inflight of plan.inflight) {
      for (const [k, srv] of plan.servers.entries()) {
        const m = await measure(conns[k], srv, inflight, plan.seconds ?? 2);
        process.stdout.write(JSON.stringify({ server: srv.name, inflight, round, ...m }) + '\n');
      }
    }
  }
} catch (err) {
  console.error(`bench: ${err.stack ?? err}`);
  for (const [k, conn] of conns.entries()) {
    if (conn.log()) {
      console.error(`--- ${plan.servers[k].name} log ---\n${conn.log()}`);
    }
  }
  process.exitCode = 1;
} finally {
  for (const conn of conns) {
    await conn.client.close().catch(() => {});
  }
}
