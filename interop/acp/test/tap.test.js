// The tap itself bites: the agent's real output of a streamed turn, changed
// line by line as a faulty agent would have written it, must be reported.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Workspace, startAgent, makeClient } from "../lib/harness.js";

const haveBin = Boolean(process.env.MAGI_CODE_BIN);
const opts = { skip: haveBin ? false : "MAGI_CODE_BIN is not set", timeout: 60000 };

const CHUNK = /"sessionUpdate":"agent_message_chunk"/;

// problemsWith runs one streamed turn through mutate and returns what the
// tap reported.
async function problemsWith(mutate) {
  const ws = new Workspace({ script: { responses: [{ steps: [{ text: "one " }, { text: "two " }, { text: "three" }] }] } });
  const agent = await startAgent(ws, { mutate });
  try {
    await makeClient().connectWith(agent.stream, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const s = await ctx.request("session/new", { cwd: ws.cwd, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "go" }] });
    });
    await agent.eof();
    return agent.problems();
  } finally {
    agent.kill();
    ws.cleanup();
  }
}

function once(pred, change) {
  let done = false;
  return (line) => {
    const s = line.toString();
    if (done || !pred(s)) return [line];
    done = true;
    return change(s).map((x) => Buffer.from(x));
  };
}

test("the tap passes the agent's own output", opts, async () => {
  assert.deepEqual(await problemsWith((l) => [l]), []);
});

test("the tap reports each planted defect of the output", opts, async () => {
  const held = [];
  const plants = [
    ["an undeclared field", once((s) => CHUNK.test(s), (s) => [s.replace(CHUNK, '"sessionUpdate":"agent_message_chunk","extra":1')]), /update\.extra: undeclared field/],
    ["a wrong type", once((s) => CHUNK.test(s), (s) => [s.replace(/"messageId":"[^"]*"/, '"messageId":7')]), /messageId/],
    ["a frame over 65,536 bytes", once((s) => CHUNK.test(s), (s) => [s.replace(CHUNK, `"_meta":{"pad":"${"a".repeat(70000)}"},"sessionUpdate":"agent_message_chunk"`)]), /bytes > 65536/],
    ["a line that is not JSON", once((s) => CHUNK.test(s), (s) => ["debug: starting\n", s]), /not JSON/],
    ["two frames on one line", once((s) => CHUNK.test(s), (s) => [s.trimEnd() + s]), /not JSON/],
    [
      "a chunk after the prompt's answer",
      (line) => {
        const s = line.toString();
        if (CHUNK.test(s) && held.length === 0) {
          held.push(line);
          return [];
        }
        if (/"stopReason"/.test(s) && held.length) return [line, held.pop()];
        return [line];
      },
      /after the prompt's answer/,
    ],
    ["a response to no request", once((s) => /"stopReason"/.test(s), (s) => [s, '{"jsonrpc":"2.0","id":99,"result":{}}\n']), /no pending request/],
    ["an update for an unknown session", once((s) => CHUNK.test(s), (s) => [s, s.replace(/"sessionId":"[^"]*"/, '"sessionId":"nope"')]), /before its session\/new/],
  ];
  for (const [name, mutate, want] of plants) {
    const got = await problemsWith(mutate);
    assert.ok(got.some((p) => want.test(p)), `${name}: the tap reported ${JSON.stringify(got).slice(0, 600)}`);
  }
});
