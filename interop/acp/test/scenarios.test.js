// Scenarios against the real binary (MAGI_CODE_BIN) speaking ACP v1, driven
// by the SDK's client; every frame of both directions is checked by the tap
// (lib/harness.js) in each scenario.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { Workspace, ZED_INITIALIZE, PLAIN_INITIALIZE, messages, descendants, alive, startAgent, makeClient, serveTurn } from "../lib/harness.js";
import { run, requestError } from "../lib/scenario.js";

// known-failures.json names scenarios that fail because the agent is wrong
// (each with the reason); they run and are reported as TODO, not as
// failures, until the agent is fixed and the entry removed.
const known = JSON.parse(readFileSync(new URL("../known-failures.json", import.meta.url), "utf8"));
function test(name, options, fn) {
  return nodeTest(name, known[name] ? { ...options, todo: "known failure: " + known[name] } : options, fn);
}

const haveBin = Boolean(process.env.MAGI_CODE_BIN);
const opts = { skip: haveBin ? false : "MAGI_CODE_BIN is not set", timeout: 60000 };

// A secret the redaction rules know (a GitHub token's shape), fresh per run.
const SECRET = "ghp_" + Array.from({ length: 36 }, (_, i) => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[(Date.now() * 7 + i * 13 + process.pid) % 62]).join("");

const ASK = '\n[tools]\napproval = "ask"\n';

function newSession(ctx, ws, extra = {}) {
  return ctx.request("session/new", { cwd: ws.cwd, mcpServers: [], ...extra });
}

function text(t) {
  return [{ type: "text", text: t }];
}

// toolStatuses maps toolCallId to its status updates, in order, and its title.
function toolCalls(updates) {
  const m = new Map();
  for (const u of updates) {
    if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
    const e = m.get(u.toolCallId) ?? { statuses: [], title: undefined, kinds: [], frames: [] };
    if (u.sessionUpdate === "tool_call" && e.frames.length > 0) e.duplicateStart = true;
    if (u.status) e.statuses.push(u.status);
    if (u.title !== undefined && u.title !== null) e.title = u.title;
    if (u.kind) e.kinds.push(u.kind);
    e.frames.push(u);
    m.set(u.toolCallId, e);
  }
  return m;
}

function final(e) {
  return e.statuses[e.statuses.length - 1];
}

test("initialize with Zed's client capabilities", opts, async () => {
  const ws = new Workspace();
  await run({ ws, init: ZED_INITIALIZE }, async ({ init, ctx }) => {
    assert.equal(init.protocolVersion, 1);
    assert.ok(init.agentInfo?.name && init.agentInfo?.version && init.agentInfo?.title, "agentInfo has name, title and version");
    const caps = init.agentCapabilities;
    assert.equal(caps.loadSession, true);
    assert.equal(caps.promptCapabilities?.embeddedContext, true);
    assert.equal(caps.mcpCapabilities?.http, true);
    for (const k of ["list", "resume", "close"]) assert.ok(caps.sessionCapabilities?.[k], `sessionCapabilities.${k}`);
    assert.ok(Array.isArray(init.authMethods) && init.authMethods.length > 0, "non-empty authMethods");
    const s = await newSession(ctx, ws);
    assert.equal(typeof s.sessionId, "string");
  });
  ws.cleanup();
});

test("a newer protocolVersion is answered with 1", opts, async () => {
  const ws = new Workspace();
  await run({ ws, init: { ...PLAIN_INITIALIZE, protocolVersion: 7 } }, async ({ init }) => {
    assert.equal(init.protocolVersion, 1);
  });
  ws.cleanup();
});

test("session/new with a bad cwd is -32602 and the connection stays usable", opts, async () => {
  const ws = new Workspace();
  await run({ ws }, async ({ ctx }) => {
    for (const cwd of ["work", "", "./", "../x"]) {
      const e = await requestError(ctx.request("session/new", { cwd, mcpServers: [] }));
      assert.equal(e.code, -32602, `cwd ${JSON.stringify(cwd)}`);
    }
    const s = await newSession(ctx, ws);
    assert.equal(typeof s.sessionId, "string");
  });
  ws.cleanup();
});

test("a streamed reply: no duplication, every chunk before the answer", opts, async () => {
  const parts = Array.from({ length: 400 }, (_, i) => `part ${i} of the reply; `);
  const ws = new Workspace({ script: { responses: [{ steps: parts.map((t) => ({ text: t })) }] } });
  await run({ ws }, async ({ agent, ctx }) => {
    const s = await newSession(ctx, ws);
    const since = agent.frames.length;
    const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("stream please") });
    assert.equal(r.stopReason, "end_turn");
    const msgs = messages(agent.updatesOf(s.sessionId, since));
    assert.equal(msgs.length, 1, "one agent message");
    assert.equal(msgs[0].text, parts.join(""), "the chunks concatenate to the reply exactly once");
    for (const u of agent.updatesOf(s.sessionId, since)) {
      if (u.sessionUpdate === "agent_message_chunk") assert.ok(u.messageId, "agent_message_chunk carries a messageId");
    }
  });
  ws.cleanup();
});

async function toolTurn(decision) {
  const ws = new Workspace({
    settings: ASK,
    script: { responses: [{ steps: [{ tool_call: { name: "shell", arguments: { command: "echo allowed > out.txt" } } }] }, { steps: [{ text: "done" }] }] },
  });
  const asked = [];
  await run(
    {
      ws,
      permission: async (params) => {
        asked.push(params);
        const opt = params.options.find((o) => o.kind === decision);
        assert.ok(opt, `an option of kind ${decision}`);
        return { outcome: { outcome: "selected", optionId: opt.optionId } };
      },
    },
    async ({ agent, ctx }) => {
      const s = await newSession(ctx, ws);
      const since = agent.frames.length;
      const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("write it") });
      assert.equal(r.stopReason, "end_turn");
      assert.equal(asked.length, 1, "one permission request");
      const kinds = asked[0].options.map((o) => o.kind);
      assert.ok(kinds.includes("allow_once") && kinds.includes("reject_once"), `options ${kinds}`);
      const calls = toolCalls(agent.updatesOf(s.sessionId, since));
      assert.equal(calls.size, 1);
      const [id, call] = [...calls][0];
      assert.equal(asked[0].toolCall.toolCallId, id, "the permission is asked on the tool call's id");
      const reqIdx = agent.frames.findIndex((f) => f.msg?.method === "session/request_permission");
      const startIdx = agent.frames.findIndex((f) => f.msg?.params?.update?.sessionUpdate === "tool_call");
      assert.ok(startIdx >= 0 && startIdx < reqIdx, "the tool_call precedes its permission request");
      assert.ok(!call.duplicateStart, "one tool_call per id");
      assert.ok(call.title.includes("echo allowed > out.txt"), `the title shows the whole command: ${call.title}`);
      assert.ok(JSON.stringify(asked[0]).includes("echo allowed > out.txt"), "the permission request shows the whole command");
      assert.ok(call.kinds.every((k) => k === "execute"), `kind ${call.kinds}`);
      assert.equal(call.statuses[0], "pending");
      return { status: final(call), statuses: call.statuses, wrote: existsSync(path.join(ws.cwd, "out.txt")) };
    },
  ).then((res) => {
    if (decision === "allow_once") {
      assert.equal(res.status, "completed", `statuses ${res.statuses}`);
      assert.ok(res.statuses.includes("in_progress"), `statuses ${res.statuses}`);
      assert.ok(res.wrote, "the command ran");
    } else {
      assert.equal(res.status, "failed", `statuses ${res.statuses}`);
      assert.ok(!res.wrote, "the rejected command did not run");
    }
  });
  ws.cleanup();
}

test("a tool call allowed", opts, () => toolTurn("allow_once"));
test("a tool call rejected", opts, () => toolTurn("reject_once"));

test("cancel mid-stream; a second prompt meanwhile is refused", opts, async () => {
  const ws = new Workspace({ script: { responses: [{ steps: [{ text: "first words " }, { sleep_ms: 60000 }, { text: "never sent" }] }] } });
  await run({ ws }, async ({ agent, ctx }) => {
    const s = await newSession(ctx, ws);
    const since = agent.frames.length;
    const p = ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("go") });
    await agent.update((u) => u.sessionUpdate === "agent_message_chunk", { since });
    const e2 = await requestError(ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("again") }));
    assert.equal(e2.code, -32600, "a second prompt while one runs: -32600 (busy, docs/acp.md)");
    await ctx.notify("session/cancel", { sessionId: s.sessionId });
    const r = await p;
    assert.equal(r.stopReason, "cancelled");
    const msgs = messages(agent.updatesOf(s.sessionId, since));
    assert.ok(!msgs.map((m) => m.text).join("").includes("never sent"));
    // The session takes a next turn.
    ws.setScript({ responses: [] });
    const r2 = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("after cancel") });
    assert.equal(r2.stopReason, "end_turn");
  });
  ws.cleanup();
});

test("cancel mid-permission: the agent stops waiting, the command never runs", opts, async () => {
  const ws = new Workspace({
    settings: ASK,
    script: { responses: [{ steps: [{ tool_call: { name: "shell", arguments: { command: "echo ran > ran.txt" } } }] }, { steps: [{ text: "after" }] }] },
  });
  let promptDone;
  const answered = new Promise((r) => (promptDone = r));
  let sid;
  await run(
    {
      ws,
      permission: async (params, cx) => {
        // Cancel, and answer only after the prompt has answered: the agent
        // must not wait for the client's answer.
        await cx.agent.notify("session/cancel", { sessionId: params.sessionId });
        await answered;
        return { outcome: { outcome: "cancelled" } };
      },
    },
    async ({ agent, ctx }) => {
      const s = await newSession(ctx, ws);
      sid = s.sessionId;
      const since = agent.frames.length;
      const r = await ctx.request("session/prompt", { sessionId: sid, prompt: text("run it") });
      promptDone();
      assert.equal(r.stopReason, "cancelled");
      const calls = toolCalls(agent.updatesOf(sid, since));
      for (const [, c] of calls) assert.notEqual(final(c), "completed", "the tool call did not complete");
      assert.ok(!existsSync(path.join(ws.cwd, "ran.txt")), "the command did not run");
      // The late answer to the permission request changes nothing.
      await new Promise((r) => setImmediate(r));
    },
  );
  ws.cleanup();
});

test("cancel mid-tool kills the tool's process group", opts, async () => {
  const ws = new Workspace({
    settings: ASK,
    script: { responses: [{ steps: [{ tool_call: { name: "shell", arguments: { command: "sleep 300 & sleep 301; echo late > late.txt" } } }] }, { steps: [{ text: "after" }] }] },
  });
  await run(
    { ws, permission: async (params) => ({ outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === "allow_once").optionId } }) },
    async ({ agent, ctx }) => {
      const s = await newSession(ctx, ws);
      const p = ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("sleep") });
      const kids = await waitForSleep(agent.pid, 2);
      await ctx.notify("session/cancel", { sessionId: s.sessionId });
      const r = await p;
      assert.equal(r.stopReason, "cancelled");
      await gone(kids);
      assert.ok(!existsSync(path.join(ws.cwd, "late.txt")));
    },
  );
  ws.cleanup();
});

// waitForSleep polls /proc until pid has n `sleep` descendants; it returns
// every descendant seen then.
async function waitForSleep(pid, n) {
  for (let i = 0; i < 400; i++) {
    const d = descendants(pid);
    const sleeps = d.filter((p) => {
      try {
        return readFileSync(`/proc/${p}/comm`, "utf8").trim() === "sleep";
      } catch {
        return false;
      }
    });
    if (sleeps.length >= n) return d;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the tool's processes never appeared");
}

// gone waits until none of pids is alive (the kill is asynchronous), and
// fails naming the survivors.
async function gone(pids) {
  for (let i = 0; i < 200; i++) {
    if (pids.every((p) => !alive(p))) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.deepEqual(
    pids.filter(alive).map((p) => `${p} ${readFileSync(`/proc/${p}/cmdline`, "utf8").replace(/\0/g, " ")}`),
    [],
    "processes outlived the cancel/exit",
  );
}

test("load in a new process equals the live transcript", opts, async () => {
  const ws = new Workspace({
    settings: '\n[tools]\napproval = "auto"\n',
    script: {
      responses: [
        { steps: [{ text: "Let me look. " }, { tool_call: { name: "list_dir", arguments: { path: "." } } }] },
        { steps: [{ text: "There is " }, { text: "one file." }] },
        { steps: [{ text: "Second answer, long: " }, { text: "0123456789abcdef".repeat(12800) }] },
      ],
    },
  });
  writeFileSync(path.join(ws.cwd, "a.txt"), "hello\n");
  const prompts = ["what is here?", "and now?"];
  const live = await run({ ws }, async ({ agent, ctx }) => {
    const s = await newSession(ctx, ws);
    const since = agent.frames.length;
    for (const p of prompts) assert.equal((await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text(p) })).stopReason, "end_turn");
    return { sid: s.sessionId, updates: agent.updatesOf(s.sessionId, since) };
  });
  const replay = await run({ ws }, async ({ agent, ctx, init }) => {
    assert.equal(init.agentCapabilities.loadSession, true);
    const since = agent.frames.length;
    const r = await ctx.request("session/load", { sessionId: live.sid, cwd: ws.cwd, mcpServers: [] });
    assert.ok(r !== undefined);
    // Everything replayed precedes the answer (the tap checks nothing for
    // the session follows a later prompt's answer; here: all before the load's).
    const answerIdx = agent.frames.findIndex((f, i) => i >= since && f.dir === "a2c" && f.msg?.result !== undefined && !f.msg.method);
    const before = agent.frames.slice(since, answerIdx).filter((f) => f.msg?.method === "session/update").map((f) => f.msg.params.update);
    return before;
  });
  assert.deepEqual(messages(replay, "user_message_chunk").map((m) => m.text), prompts, "the user messages");
  assert.deepEqual(messages(replay), messages(live.updates), "the agent messages, with their messageIds");
  const lt = toolCalls(live.updates);
  const rt = toolCalls(replay);
  assert.deepEqual([...rt.keys()], [...lt.keys()], "the same tool calls");
  for (const [id, c] of lt) {
    assert.equal(final(rt.get(id)), final(c), `tool ${id} final status`);
    assert.equal(rt.get(id).title, c.title, `tool ${id} title`);
  }
  ws.cleanup();
});

test("list and resume", opts, async () => {
  const ws = new Workspace();
  const other = new Workspace();
  const sids = await run({ ws }, async ({ ctx }) => {
    const out = [];
    // More than one page (docs/acp.md: 50 per page).
    for (let i = 0; i < 55; i++) {
      const s = await newSession(ctx, ws);
      assert.equal((await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("hello " + i) })).stopReason, "end_turn");
      // A process holds at most 16 open sessions (docs/acp.md).
      await ctx.request("session/close", { sessionId: s.sessionId });
      out.push(s.sessionId);
    }
    return out;
  });
  await run({ ws }, async ({ agent, ctx, init }) => {
    assert.ok(init.agentCapabilities.sessionCapabilities?.list);
    const seen = [];
    let cursor;
    let pages = 0;
    for (let page = 0; page < 10; page++) {
      pages++;
      const r = await ctx.request("session/list", { cwd: ws.cwd, ...(cursor ? { cursor } : {}) });
      for (const s of r.sessions) {
        assert.equal(s.cwd, ws.cwd, "sessions of that cwd only");
        seen.push(s.sessionId);
      }
      if (!r.nextCursor) break;
      cursor = r.nextCursor;
    }
    for (const id of sids) assert.ok(seen.includes(id), `session ${id} listed`);
    assert.equal(new Set(seen).size, seen.length, "no session listed twice");
    assert.ok(pages > 1, "the list is paged");
    const bad = await requestError(ctx.request("session/list", { cwd: ws.cwd, cursor: "not-a-cursor-we-issued" }));
    assert.ok(bad.code === -32602 || bad.code === -32002, `a foreign cursor: ${bad.code}`);
    const since = agent.frames.length;
    await ctx.request("session/resume", { sessionId: sids[1], cwd: ws.cwd, mcpServers: [] });
    const replayed = agent.updatesOf(sids[1], since).filter((u) => /message_chunk|tool_call/.test(u.sessionUpdate));
    assert.deepEqual(replayed, [], "resume replays nothing");
    const r = await ctx.request("session/prompt", { sessionId: sids[1], prompt: text("resumed") });
    assert.equal(r.stopReason, "end_turn");
    assert.equal(messages(agent.updatesOf(sids[1], since)).map((m) => m.text).join(""), "echo: resumed");
    // Another workspace lists none of them.
    const o = await ctx.request("session/list", { cwd: other.cwd });
    assert.deepEqual(o.sessions.filter((s) => sids.includes(s.sessionId)), []);
  });
  ws.cleanup();
  other.cleanup();
});

test("config options: mode and model, set_config_option and set_mode, a bad value is -32602", opts, async () => {
  const ws = new Workspace({
    settings: ASK,
    script: { responses: [{ steps: [{ tool_call: { name: "write_file", arguments: { path: "ro.txt", content: "x" } } }] }, { steps: [{ text: "ok" }] }] },
  });
  await run({ ws, permission: async (p) => ({ outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "allow_once").optionId } }) }, async ({ agent, ctx }) => {
    const s = await newSession(ctx, ws);
    const mode = s.configOptions?.find((o) => o.id === "mode");
    assert.ok(mode, "a mode option");
    const values = (mode.options ?? []).flatMap((o) => (o.options ? o.options : [o])).map((o) => o.value);
    for (const v of ["ask", "auto", "read-only"]) assert.ok(values.includes(v), `mode ${v} offered: ${values}`);
    assert.ok(s.configOptions.find((o) => o.id === "model"), "a model option");
    assert.equal(s.modes?.currentModeId, mode.currentValue, "legacy modes in sync");
    const r = await ctx.request("session/set_config_option", { sessionId: s.sessionId, configId: "mode", value: "read-only" });
    assert.equal(r.configOptions.find((o) => o.id === "mode").currentValue, "read-only");
    assert.ok(r.configOptions.find((o) => o.id === "model"), "the complete option list");
    const bad = await requestError(ctx.request("session/set_config_option", { sessionId: s.sessionId, configId: "mode", value: "yolo" }));
    assert.equal(bad.code, -32602);
    const badMode = await requestError(ctx.request("session/set_mode", { sessionId: s.sessionId, modeId: "yolo" }));
    assert.equal(badMode.code, -32602);
    // read-only refuses the write without asking.
    const since = agent.frames.length;
    const pr = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("write") });
    assert.equal(pr.stopReason, "end_turn");
    assert.ok(!existsSync(path.join(ws.cwd, "ro.txt")), "read-only refused the write");
    assert.ok(!agent.frames.slice(since).some((f) => f.msg?.method === "session/request_permission"), "no permission asked under read-only");
    await ctx.request("session/set_mode", { sessionId: s.sessionId, modeId: "ask" });
  });
  ws.cleanup();
});

test("an embedded resource of 100 KB", opts, async () => {
  const ws = new Workspace();
  const big = Array.from({ length: 3000 }, (_, i) => `line ${i}: ${"lorem ipsum ".repeat(3)}`).join("\n").slice(0, 100 * 1024);
  assert.equal(big.length, 100 * 1024);
  await run({ ws }, async ({ ctx }) => {
    const s = await newSession(ctx, ws);
    const r = await ctx.request("session/prompt", {
      sessionId: s.sessionId,
      prompt: [
        { type: "text", text: "summarize @big.txt" },
        { type: "resource", resource: { uri: "file://" + path.join(ws.cwd, "big.txt"), mimeType: "text/plain", text: big } },
      ],
    });
    assert.equal(r.stopReason, "end_turn");
  });
  ws.cleanup();
});

test("a client MCP server (stdio) from session/new", { ...opts, skip: opts.skip || (process.env.MAGI_DEMO_MCP_BIN ? false : "MAGI_DEMO_MCP_BIN is not set") }, async () => {
  const ws = new Workspace({
    settings: ASK,
    script: { responses: [{ steps: [{ tool_call: { name: "mcp__notes__search_notes", arguments: { query: "" } } }] }, { steps: [{ text: "found" }] }] },
  });
  await run({ ws, permission: async (p) => ({ outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "allow_once").optionId } }) }, async ({ agent, ctx }) => {
    const s = await ctx.request("session/new", { cwd: ws.cwd, mcpServers: [{ name: "notes", command: process.env.MAGI_DEMO_MCP_BIN, args: [], env: [] }] });
    const since = agent.frames.length;
    const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("search") });
    assert.equal(r.stopReason, "end_turn");
    const calls = toolCalls(agent.updatesOf(s.sessionId, since));
    assert.equal(calls.size, 1);
    const [c] = [...calls.values()];
    assert.equal(final(c), "completed", `statuses ${c.statuses}`);
    // A server that fails to start is a notice, not a failed session.
    const s2 = await ctx.request("session/new", { cwd: ws.cwd, mcpServers: [{ name: "broken", command: path.join(ws.root, "no-such-server"), args: [], env: [] }] });
    assert.equal(typeof s2.sessionId, "string");
  });
  ws.cleanup();
});

test("redaction of a secret in text, title and command output", opts, async () => {
  const ws = new Workspace({
    settings: ASK,
    script: {
      responses: [
        { steps: [{ text: "the key is " + SECRET.slice(0, 10) }, { text: SECRET.slice(10) + " ok" }, { tool_call: { name: "shell", arguments: { command: `echo ${SECRET}` } } }] },
        { steps: [{ tool_call: { name: "write_file", arguments: { path: "key.txt", content: `token = ${SECRET}\n` } } }] },
        { steps: [{ tool_call: { name: "read_file", arguments: { path: "key.txt" } } }] },
        { steps: [{ text: "printed" }] },
      ],
    },
  });
  await run({ ws, permission: async (p) => ({ outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "allow_once").optionId } }) }, async ({ agent, ctx }) => {
    const s = await newSession(ctx, ws);
    const since = agent.frames.length;
    const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("show the key") });
    assert.equal(r.stopReason, "end_turn");
    const body = SECRET.slice(4);
    for (const f of agent.frames) if (f.dir === "a2c") assert.ok(!f.raw.includes(body), `a frame holds the secret: ${f.raw.slice(0, 200)}`);
    const msgs = messages(agent.updatesOf(s.sessionId, since)).map((m) => m.text).join("");
    assert.ok(msgs.startsWith("the key is ") && msgs.includes(" ok"), `the text around the secret is kept: ${msgs}`);
    const calls = toolCalls(agent.updatesOf(s.sessionId, since));
    const [c, w, rd] = [...calls.values()];
    assert.equal(final(c), "completed");
    assert.ok(c.title.startsWith("echo "), `the title keeps the command: ${c.title}`);
    assert.equal(final(w), "completed", "the write (its rawInput and diff hold the secret)");
    assert.equal(final(rd), "completed", "the read (its output holds the secret)");
    assert.ok(readFileSync(path.join(ws.cwd, "key.txt"), "utf8").includes(SECRET), "the file itself holds the secret: only frames are redacted");
  });
  ws.cleanup();
});

test("malformed input: -32700 with id null, -32601, no echo, the connection stays usable", opts, async () => {
  const ws = new Workspace();
  await run({ ws }, async ({ agent, ctx }) => {
    const marker = "zqx" + process.pid + "marker";
    let since = agent.frames.length;
    agent.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"${marker}\n`);
    const pe = await agent.waitFrame((f) => f.dir === "a2c" && f.msg?.error && f.msg.id === null, { since, what: "the -32700 answer" });
    assert.equal(pe.msg.error.code, -32700);
    since = agent.frames.length;
    agent.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: "raw-1", method: "x/" + marker, params: { [marker]: marker } }) + "\n");
    const me = await agent.waitFrame((f) => f.dir === "a2c" && f.msg?.id === "raw-1", { since, what: "the -32601 answer" });
    assert.equal(me.msg.error?.code, -32601);
    since = agent.frames.length;
    agent.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: "raw-2", method: "session/new", params: { cwd: 5, mcpServers: [] } }) + "\n");
    const ie = await agent.waitFrame((f) => f.dir === "a2c" && f.msg?.id === "raw-2", { since, what: "the -32602 answer" });
    assert.equal(ie.msg.error?.code, -32602);
    since = agent.frames.length;
    agent.sendRaw("x".repeat(200000) + marker + "\n");
    const be = await agent.waitFrame((f) => f.dir === "a2c" && f.msg?.error && f.msg.id === null, { since, what: "the -32700 answer to a long junk line" });
    assert.equal(be.msg.error.code, -32700);
    for (const f of agent.frames) if (f.dir === "a2c") assert.ok(!f.raw.includes(marker), `an answer echoes the input: ${f.raw.slice(0, 200)}`);
    const s = await newSession(ctx, ws);
    const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("still here") });
    assert.equal(r.stopReason, "end_turn");
  });
  ws.cleanup();
});

test("EOF mid-turn: the agent exits and no process survives; the session opens again", opts, async () => {
  const ws = new Workspace({
    settings: ASK,
    script: { responses: [{ steps: [{ tool_call: { name: "shell", arguments: { command: "sleep 300 & sleep 302" } } }] }] },
  });
  let kids = [];
  let sid;
  await run(
    { ws, permission: async (p) => ({ outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "allow_once").optionId } }) },
    async ({ agent, ctx }) => {
      const s = await newSession(ctx, ws);
      sid = s.sessionId;
      ctx.request("session/prompt", { sessionId: sid, prompt: text("sleep") }).catch(() => {});
      kids = await waitForSleep(agent.pid, 2);
      // run() closes stdin now, mid-turn, and waits for the exit.
    },
  );
  await gone(kids);
  await run({ ws }, async ({ ctx }) => {
    await ctx.request("session/load", { sessionId: sid, cwd: ws.cwd, mcpServers: [] });
  });
  ws.cleanup();
});

test("available commands after session/new include the built-in /compact", opts, async () => {
  const ws = new Workspace();
  await run({ ws }, async ({ agent, ctx }) => {
    const s = await newSession(ctx, ws);
    const f = await agent.update((u, p) => p.sessionId === s.sessionId && u.sessionUpdate === "available_commands_update", { what: "available_commands_update" });
    const names = f.msg.params.update.availableCommands.map((c) => c.name.replace(/^\//, ""));
    assert.ok(names.includes("compact"), `available commands: ${JSON.stringify(names)}`);
  });
  ws.cleanup();
});

test("an over-limit resource is cut, an over-limit prompt is -32602, the connection stays", opts, async () => {
  const ws = new Workspace();
  await run({ ws }, async ({ ctx }) => {
    const s = await newSession(ctx, ws);
    const mib = "0123456789abcdef".repeat(65536);
    const resource = (text) => ({ type: "resource", resource: { uri: "file://" + path.join(ws.cwd, "big.txt"), mimeType: "text/plain", text } });
    const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "read this" }, resource(mib + mib.slice(0, 500000))] });
    assert.equal(r.stopReason, "end_turn");
    const e = await requestError(ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "too much" }, resource(mib), resource(mib), resource(mib), resource(mib), resource(mib)] }));
    assert.equal(e.code, -32602);
    const r2 = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("still here") });
    assert.equal(r2.stopReason, "end_turn");
  });
  ws.cleanup();
});

test("two sessions of different cwds run their turns at once", opts, async () => {
  const ws = new Workspace();
  const other = new Workspace();
  await run({ ws }, async ({ agent, ctx }) => {
    const a = await newSession(ctx, ws);
    const b = await ctx.request("session/new", { cwd: other.cwd, mcpServers: [] });
    const since = agent.frames.length;
    const [ra, rb] = await Promise.all([
      ctx.request("session/prompt", { sessionId: a.sessionId, prompt: text("first session") }),
      ctx.request("session/prompt", { sessionId: b.sessionId, prompt: text("second session") }),
    ]);
    assert.equal(ra.stopReason, "end_turn");
    assert.equal(rb.stopReason, "end_turn");
    assert.equal(messages(agent.updatesOf(a.sessionId, since)).map((m) => m.text).join(""), "echo: first session");
    assert.equal(messages(agent.updatesOf(b.sessionId, since)).map((m) => m.text).join(""), "echo: second session");
  });
  ws.cleanup();
  other.cleanup();
});

test("session/close cancels the turn; nothing follows; the session is gone", opts, async () => {
  const ws = new Workspace({ script: { responses: [{ steps: [{ text: "working " }, { sleep_ms: 60000 }, { text: "never" }] }] } });
  await run({ ws }, async ({ agent, ctx, init }) => {
    assert.ok(init.agentCapabilities.sessionCapabilities?.close);
    const s = await newSession(ctx, ws);
    const since = agent.frames.length;
    const p = ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("go") });
    await agent.update((u) => u.sessionUpdate === "agent_message_chunk", { since });
    await ctx.request("session/close", { sessionId: s.sessionId });
    const r = await p;
    assert.equal(r.stopReason, "cancelled");
    const e = await requestError(ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("again") }));
    assert.equal(e.code, -32002, "a closed session is unknown");
  });
  ws.cleanup();
});

test("with Zed's capabilities, reads and approved writes go through the client's file system", opts, async () => {
  const ws = new Workspace({
    settings: ASK,
    script: {
      responses: [
        { steps: [{ tool_call: { name: "read_file", arguments: { path: "a.txt" } } }] },
        { steps: [{ tool_call: { name: "write_file", arguments: { path: "b.txt", content: "from the model\n" } } }] },
        { steps: [{ text: "done" }] },
      ],
    },
  });
  writeFileSync(path.join(ws.cwd, "a.txt"), "on disk\n");
  const reads = [];
  const writes = [];
  await run(
    {
      ws,
      init: ZED_INITIALIZE,
      permission: async (p) => ({ outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "allow_once").optionId } }),
      onRequest: {
        readTextFile: (p) => {
          reads.push(p);
          return { content: "unsaved buffer\n" };
        },
        writeTextFile: (p) => {
          writes.push(p);
          return {};
        },
      },
    },
    async ({ ctx }) => {
      const s = await newSession(ctx, ws);
      const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("edit") });
      assert.equal(r.stopReason, "end_turn");
    },
  );
  assert.deepEqual(reads.map((p) => p.path), [path.join(ws.cwd, "a.txt")], "the read went to the editor");
  assert.deepEqual(writes.map((p) => [p.path, p.content]), [[path.join(ws.cwd, "b.txt"), "from the model\n"]], "the approved write went to the editor");
  assert.ok(!existsSync(path.join(ws.cwd, "b.txt")), "the agent did not write the disk itself");
  ws.cleanup();
});

test("with Zed's terminal _meta advertised, command output arrives through it", opts, async () => {
  // The command prints, then waits for a file the client creates once it
  // has seen the first line through the terminal: the output is live, not
  // sent at the end. Then it prints a secret and exits 3.
  const ws = new Workspace({ settings: ASK, script: { responses: [] } });
  const gate = path.join(ws.root, "gate");
  const command = `echo live-terminal-output; while [ ! -e ${gate} ]; do sleep 0.05; done; echo ${SECRET}; exit 3`;
  ws.setScript({
    responses: [
      { steps: [{ tool_call: { name: "shell", arguments: { command } } }] },
      { steps: [{ tool_call: { name: "shell", arguments: { command: "echo denied-never-runs" } } }] },
      { steps: [{ text: "done" }] },
    ],
  });
  let asked = 0;
  await run(
    {
      ws,
      init: ZED_INITIALIZE,
      permission: async (p) => {
        asked++;
        const kind = asked === 1 ? "allow_once" : "reject_once";
        return { outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === kind).optionId } };
      },
    },
    async ({ agent, ctx }) => {
      const s = await newSession(ctx, ws);
      const since = agent.frames.length;
      const opened = (async () => {
        for (;;) {
          const seen = agent.updatesOf(s.sessionId, since).some((u) => JSON.stringify(u._meta?.terminal_output?.data ?? "").includes("live-terminal-output"));
          if (seen) return writeFileSync(gate, "");
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("run") });
      await opened;
      assert.equal(r.stopReason, "end_turn");
      const calls = [...toolCalls(agent.updatesOf(s.sessionId, since)).values()];
      assert.equal(calls.length, 2);
      const [ran, denied] = calls;
      const id = ran.frames[0].toolCallId;
      assert.deepEqual(ran.frames[0].content, [{ type: "terminal", terminalId: id }], "the tool_call's content is the terminal");
      assert.equal(ran.frames[0]._meta?.terminal_info?.terminal_id, id, "terminal_info names the terminal");
      const outs = ran.frames.filter((u) => u._meta?.terminal_output);
      assert.ok(outs.every((u) => u._meta.terminal_output.terminal_id === id && u.status === undefined && u.content === undefined), "output updates carry only the output");
      const data = outs.map((u) => u._meta.terminal_output.data).join("");
      assert.ok(data.startsWith("live-terminal-output\n"), `the output: ${data}`);
      assert.ok(!data.includes(SECRET.slice(4)) && data.length > "live-terminal-output\n".length, `the secret is redacted, its line kept: ${data}`);
      const last = ran.frames[ran.frames.length - 1];
      assert.equal(last.status, "failed", "exit 3 fails the call");
      assert.deepEqual(last._meta?.terminal_exit, { terminal_id: id, exit_code: 3, signal: null });
      assert.deepEqual(last.content, [{ type: "terminal", terminalId: id }], "the terminal stays the content");
      assert.ok(ran.frames.indexOf(outs[0]) > ran.frames.findIndex((u) => u.status === "in_progress"), "output after in_progress");
      // The rejected command never ran: no output, and a text block says why.
      const dl = denied.frames[denied.frames.length - 1];
      assert.equal(dl.status, "failed");
      assert.ok(!denied.frames.some((u) => u._meta?.terminal_output || u._meta?.terminal_exit), "no output from a command that never ran");
      assert.equal(dl.content?.[0]?.type, "content", "the denial as text");
    },
  );
  ws.cleanup();
});

test("without Zed's terminal _meta, command output comes as one block at the end", opts, async () => {
  const ws = new Workspace({
    settings: ASK,
    script: { responses: [{ steps: [{ tool_call: { name: "shell", arguments: { command: "echo one-block" } } }] }, { steps: [{ text: "done" }] }] },
  });
  await run(
    { ws, init: { ...ZED_INITIALIZE, clientCapabilities: { ...ZED_INITIALIZE.clientCapabilities, _meta: { terminal_output: "yes" } } }, permission: async (p) => ({ outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "allow_once").optionId } }) },
    async ({ agent, ctx }) => {
      const s = await newSession(ctx, ws);
      const since = agent.frames.length;
      assert.equal((await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("run") })).stopReason, "end_turn");
      const [c] = [...toolCalls(agent.updatesOf(s.sessionId, since)).values()];
      assert.ok(!c.frames.some((u) => u._meta || (u.content ?? []).some((x) => x.type === "terminal")), "no terminal");
      const withContent = c.frames.filter((u) => u.content);
      assert.equal(withContent.length, 1, "one block");
      assert.equal(withContent[0].content[0].content.text, "one-block\n");
    },
  );
  ws.cleanup();
});

test("a session held by one process is refused to another until it lets go", opts, async () => {
  const ws = new Workspace();
  const first = await startAgent(ws);
  const app = makeClient();
  await app.connectWith(first.stream, async (ctx) => {
    await ctx.request("initialize", PLAIN_INITIALIZE);
    const s = await newSession(ctx, ws);
    assert.equal((await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("mine") })).stopReason, "end_turn");
    await run({ ws }, async ({ agent, ctx: other }) => {
      const since = agent.frames.length;
      const e = await requestError(other.request("session/load", { sessionId: s.sessionId, cwd: ws.cwd, mcpServers: [] }));
      assert.ok(e.code < 0, "load of a held session is an error");
      assert.deepEqual(agent.updatesOf(s.sessionId, since), [], "nothing of the held session reached the other client");
      await requestError(other.request("session/resume", { sessionId: s.sessionId, cwd: ws.cwd, mcpServers: [] }));
    });
    await ctx.request("session/close", { sessionId: s.sessionId });
    await run({ ws }, async ({ ctx: other }) => {
      await other.request("session/resume", { sessionId: s.sessionId, cwd: ws.cwd, mcpServers: [] });
    });
  });
  first.stdin.end();
  await first.exited;
  assert.deepEqual(first.problems(), []);
  ws.cleanup();
});

test("open sessions are bounded; a closed one frees its place", opts, async () => {
  const ws = new Workspace();
  await run({ ws }, async ({ ctx }) => {
    const open = [];
    let refused = null;
    for (let i = 0; i < 64 && !refused; i++) {
      try {
        open.push((await newSession(ctx, ws)).sessionId);
      } catch (e) {
        if (e?.code === undefined) throw e;
        refused = e;
      }
    }
    assert.ok(refused, `64 sessions open at once`);
    assert.ok(refused.code < 0 && refused.code !== -32602, `the bound's error: ${refused.code}`);
    await ctx.request("session/close", { sessionId: open[0] });
    const s = await newSession(ctx, ws);
    assert.equal((await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("fits") })).stopReason, "end_turn");
  });
  ws.cleanup();
});

test("large tool content (a write's diff, a read, command output) stays within the frame bound", opts, async () => {
  const big = "HEAD-MARK\n" + "0123456789abcdef".repeat(20000); // 320 KB
  const ws = new Workspace({
    settings: '\n[tools]\napproval = "auto"\nunsandboxed_auto = true\n',
    script: {
      responses: [
        { steps: [{ tool_call: { name: "write_file", arguments: { path: "big.txt", content: big } } }] },
        { steps: [{ tool_call: { name: "read_file", arguments: { path: "big.txt" } } }] },
        { steps: [{ tool_call: { name: "edit_file", arguments: { path: "big.txt", old: "HEAD-MARK", new: "EDITED" } } }] },
        { steps: [{ tool_call: { name: "shell", arguments: { command: "cat big.txt big.txt" } } }] },
        { steps: [{ text: "done" }] },
      ],
    },
  });
  await run({ ws, permission: async (p) => ({ outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "allow_once").optionId } }) }, async ({ agent, ctx }) => {
    const s = await newSession(ctx, ws);
    const since = agent.frames.length;
    const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("big") });
    assert.equal(r.stopReason, "end_turn");
    const calls = toolCalls(agent.updatesOf(s.sessionId, since));
    assert.equal(calls.size, 4);
    for (const [id, c] of calls) assert.equal(final(c), "completed", `${id}: ${c.statuses}`);
    const kinds = [...calls.values()].map((c) => c.kinds[0]);
    assert.deepEqual(kinds, ["edit", "read", "edit", "execute"]);
    const diffs = [...calls.values()].flatMap((c) => c.frames.flatMap((u) => (u.content ?? []).filter((x) => x.type === "diff")));
    assert.ok(diffs.length >= 1, "an edit carries a diff");
    for (const d of diffs) assert.ok(path.isAbsolute(d.path), `diff path ${d.path}`);
    // The tap checks every frame's size.
  });
  ws.cleanup();
});

test("a failed run is a JSON-RPC error whose data holds a stable code, not provider text", opts, async () => {
  const ws = new Workspace({ script: { responses: [{ steps: [{ text: "partial " }, { error: "provider_error" }] }] } });
  await run({ ws }, async ({ ctx }) => {
    const s = await newSession(ctx, ws);
    const e = await requestError(ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("fail") }));
    assert.ok(e.code < 0);
    assert.match(String(e.data?.code ?? ""), /^[a-z_]+$/, `data: ${JSON.stringify(e.data)}`);
    ws.setScript({ responses: [] });
    const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("again") });
    assert.equal(r.stopReason, "end_turn");
  });
  ws.cleanup();
});

test("initialize does no provider work; a provider that cannot answer fails the prompt with a stable code", opts, async () => {
  const ws = new Workspace();
  // An OpenAI-compatible provider on a closed local port, its key variable unset.
  writeFileSync(
    path.join(ws.home, "settings.toml"),
    'provider = "openai"\nmodel = "gpt-test"\n\n[providers.openai]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "MAGI_INTEROP_UNSET_KEY"\n',
  );
  await run({ ws }, async ({ ctx, init }) => {
    assert.equal(init.protocolVersion, 1);
    // authenticate names an advertised method; the tap validates whatever it answers.
    await ctx.request("authenticate", { methodId: init.authMethods[0].id }).catch((e) => {
      if (e?.code === undefined) throw e;
    });
    // The failure comes at session/new (the session's settings name the
    // provider) or at the prompt; either way a stable code, no detail.
    let e = null;
    try {
      const s = await newSession(ctx, ws);
      e = await requestError(ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("hello") }));
    } catch (err) {
      if (err?.code === undefined) throw err;
      e = err;
    }
    assert.match(String(e.data?.code ?? ""), /^[a-z_]+$/, `data: ${JSON.stringify(e.data)}`);
    assert.ok(!JSON.stringify({ m: e.message, d: e.data }).includes("127.0.0.1"), "no provider detail in the error");
    const l = await ctx.request("session/list", { cwd: ws.cwd });
    assert.ok(Array.isArray(l.sessions), "the connection stays usable");
  });
  ws.cleanup();
});

test("a missing credential is -32000 Authentication required, its code kept, and the auth method says what to do", opts, async () => {
  const ws = new Workspace();
  writeFileSync(path.join(ws.home, "settings.toml"), 'provider = "openai"\nmodel = "gpt-test"\n\n[providers.openai]\napi_key_env = "MAGI_INTEROP_UNSET_KEY"\n');
  await run({ ws, init: ZED_INITIALIZE }, async ({ ctx, init }) => {
    assert.ok(init.authMethods.length > 0 && /magi-code login/.test(JSON.stringify(init.authMethods)), "an auth method names magi-code login");
    const e = await requestError(newSession(ctx, ws));
    assert.equal(e.code, -32000, `session/new: ${JSON.stringify(e)}`);
    assert.equal(e.message, "Authentication required");
    assert.deepEqual(e.data, { code: "provider_unavailable" });
    const l = await ctx.request("session/list", { cwd: ws.cwd });
    assert.ok(Array.isArray(l.sessions), "the connection stays usable");
  });
  ws.cleanup();
});

test("with the client's file system, the workspace guard and approval come first", opts, async () => {
  const ws = new Workspace({
    settings: ASK,
    script: {
      responses: [
        { steps: [{ tool_call: { name: "read_file", arguments: { path: "../outside.txt" } } }] },
        { steps: [{ tool_call: { name: "write_file", arguments: { path: "inside.txt", content: "x" } } }] },
        { steps: [{ text: "done" }] },
      ],
    },
  });
  writeFileSync(path.join(ws.root, "outside.txt"), "outside the workspace\n");
  const calls = [];
  const asked = [];
  await run(
    {
      ws,
      init: ZED_INITIALIZE,
      permission: async (p) => {
        asked.push(p);
        return { outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "reject_once").optionId } };
      },
      onRequest: {
        readTextFile: (p) => {
          calls.push(["read", p.path]);
          return { content: "" };
        },
        writeTextFile: (p) => {
          calls.push(["write", p.path]);
          return {};
        },
      },
    },
    async ({ ctx }) => {
      const s = await newSession(ctx, ws);
      assert.equal((await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("try") })).stopReason, "end_turn");
    },
  );
  assert.equal(asked.length, 2, "the outside read and the write each asked");
  assert.deepEqual(calls, [], "nothing reached the editor's file system after the refusals");
  ws.cleanup();
});

test("a client MCP server over HTTP from session/new", { ...opts, skip: opts.skip || (process.env.MAGI_MCP_EVERYTHING_ENTRY ? false : "MAGI_MCP_EVERYTHING_ENTRY is not set") }, async () => {
  const port = await new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const p = srv.address().port;
      srv.close(() => resolve(p));
    });
  });
  const server = spawn(process.execPath, [process.env.MAGI_MCP_EVERYTHING_ENTRY, "streamableHttp"], { env: { PATH: process.env.PATH, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  try {
    await new Promise((resolve, reject) => {
      let err = "";
      server.stderr.on("data", (d) => {
        err += d;
        if (/listening on port/.test(err)) resolve();
      });
      server.on("exit", () => reject(new Error("the reference server exited: " + err)));
    });
    const ws = new Workspace({
      settings: ASK,
      script: { responses: [{ steps: [{ tool_call: { name: "mcp__ev__echo", arguments: { message: "over http" } } }] }, { steps: [{ text: "echoed" }] }] },
    });
    await run({ ws, permission: async (p) => ({ outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "allow_once").optionId } }) }, async ({ agent, ctx, init }) => {
      assert.equal(init.agentCapabilities.mcpCapabilities?.http, true);
      const s = await ctx.request("session/new", { cwd: ws.cwd, mcpServers: [{ type: "http", name: "ev", url: `http://127.0.0.1:${port}/mcp`, headers: [] }] });
      const since = agent.frames.length;
      const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: text("echo") });
      assert.equal(r.stopReason, "end_turn");
      const [c] = [...toolCalls(agent.updatesOf(s.sessionId, since)).values()];
      assert.equal(final(c), "completed", `statuses ${c.statuses}`);
      assert.ok(JSON.stringify(c.frames).includes("over http"), "the server's answer is in the tool call");
    });
    ws.cleanup();
  } finally {
    server.kill("SIGKILL");
  }
});

test("a session made by serve (Mission Control's protocol) loads over ACP, every replayed frame valid", opts, async () => {
  const ws = new Workspace({
    settings: '\n[tools]\napproval = "auto"\n',
    script: {
      responses: [
        { steps: [{ reasoning_summary: "look first" }, { text: "Looking. " }, { tool_call: { name: "list_dir", arguments: { path: "." } } }] },
        { steps: [{ tool_call: { name: "read_file", arguments: { path: "a.txt" } } }] },
        { steps: [{ text: "It says hello." }] },
      ],
    },
  });
  writeFileSync(path.join(ws.cwd, "a.txt"), "hello\n");
  const sid = await serveTurn(ws, "what is in a.txt?");
  await run({ ws }, async ({ agent, ctx }) => {
    const since = agent.frames.length;
    await ctx.request("session/load", { sessionId: sid, cwd: ws.cwd, mcpServers: [] });
    const replay = agent.updatesOf(sid, since);
    assert.deepEqual(messages(replay, "user_message_chunk").map((m) => m.text), ["what is in a.txt?"]);
    assert.equal(messages(replay).map((m) => m.text).join(""), "Looking. It says hello.");
    const calls = toolCalls(replay);
    assert.equal(calls.size, 2);
    for (const [id, c] of calls) assert.equal(final(c), "completed", `${id}: ${c.statuses}`);
    const r = await ctx.request("session/prompt", { sessionId: sid, prompt: text("and now over ACP") });
    assert.equal(r.stopReason, "end_turn");
  });
  ws.cleanup();
});
