// run drives one `magi-code acp` process through the SDK's client and, at
// the end, closes its stdin, waits for its exit and fails the test on any
// problem the tap found (a frame invalid for its method, an undeclared
// field, an oversized frame, non-protocol bytes, bytes on stderr, an update
// out of order).
import assert from "node:assert/strict";
import { Agent, makeClient, PLAIN_INITIALIZE, startAgent } from "./harness.js";

export async function run({ ws, init = PLAIN_INITIALIZE, permission, onRequest, agentOpts = {}, expectExit = true }, op) {
  const agent = await startAgent(ws, agentOpts);
  const app = makeClient({ permission, onRequest });
  let result;
  try {
    result = await app.connectWith(agent.stream, async (ctx) => {
      const initResp = init ? await ctx.request("initialize", init) : null;
      return op({ agent, ctx, init: initResp });
    });
  } catch (e) {
    agent.kill();
    e.message += "\ntap problems:\n" + agent.problems().join("\n");
    throw e;
  }
  if (expectExit) {
    const guard = setTimeout(() => agent.kill(), 15000);
    const exit = await agent.eof();
    clearTimeout(guard);
    assert.equal(exit.signal, null, "magi-code acp was killed: it did not exit after stdin EOF");
  } else {
    agent.kill();
  }
  assert.deepEqual(agent.problems(), [], "the tap found problems");
  return result;
}

// requestError runs p and returns the JSON-RPC error it rejects with.
export async function requestError(p) {
  try {
    const r = await p;
    assert.fail("expected an error, got " + JSON.stringify(r));
  } catch (e) {
    if (e?.code === undefined) throw e;
    return e;
  }
}

export { Agent };
