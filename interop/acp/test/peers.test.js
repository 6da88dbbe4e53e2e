// The validator bites: the initialize answers of two published ACP agents,
// installed at pinned versions into peers/ (npm ci --prefix peers; about
// 850 MB, so not installed by default), hold fields the v1 schema does not
// declare, and the tap reports them. Skipped when peers/ is not installed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Workspace, ZED_INITIALIZE, startAgent, makeClient } from "../lib/harness.js";

const peers = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "peers", "node_modules", ".bin");

function peerTest(name, want) {
  const bin = path.join(peers, name);
  return [`the validator finds undeclared fields in ${name}'s initialize answer`, { skip: existsSync(bin) ? false : `${name} is not installed (npm ci --prefix interop/acp/peers)`, timeout: 60000 }, async () => {
    const ws = new Workspace();
    const agent = await startAgent(ws, { command: [process.execPath, bin], env: { PATH: process.env.PATH, HOME: ws.root } });
    try {
      const init = await makeClient().connectWith(agent.stream, (ctx) => ctx.request("initialize", ZED_INITIALIZE));
      assert.equal(init.protocolVersion, 1, "the SDK accepts the answer");
      if (process.env.ACP_SHOW) console.log(agent.violations.join("\n"));
      const undeclared = agent.violations.filter((v) => v.includes("undeclared field"));
      assert.ok(undeclared.some((v) => want.test(v)), `the tap reports ${want}; it found:\n${agent.violations.join("\n")}`);
    } finally {
      agent.kill();
      await agent.exited;
      ws.cleanup();
    }
  }];
}

test(...peerTest("claude-agent-acp", /initialize result\.agentCapabilities\.providers: undeclared field/));
test(...peerTest("codex-acp", /initialize result\.agentCapabilities\.mcpCapabilities\.acp: undeclared field/));
