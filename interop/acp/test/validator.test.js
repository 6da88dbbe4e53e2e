// The checker itself, on frames written here: what it must accept, and each
// kind of defect it must report. No binary needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FrameChecker, loadValidator } from "../lib/validate.js";

const v = await loadValidator();

function checker() {
  const c = new FrameChecker(v);
  c.check("c2a", { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } } });
  return c;
}

const initResult = { protocolVersion: 1, agentCapabilities: { loadSession: true, promptCapabilities: { embeddedContext: true }, mcpCapabilities: { http: true } }, authMethods: [{ id: "login", name: "Log in", description: "run magi-code login" }], agentInfo: { name: "magi-code", title: "magi-code", version: "1" } };

test("valid frames pass, _meta and free-form fields included", () => {
  const c = checker();
  assert.deepEqual(c.check("a2c", { jsonrpc: "2.0", id: 0, result: { ...initResult, _meta: { anything: { goes: [1] } } } }), []);
  assert.deepEqual(c.check("c2a", { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [{ name: "s", command: "/bin/s", args: [], env: [{ name: "A", value: "b" }] }] } }), []);
  assert.deepEqual(c.check("a2c", { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "tool_call", toolCallId: "t", title: "ls", kind: "execute", status: "pending", rawInput: { free: { form: true } }, locations: [{ path: "/w/a", line: 3 }] } } }), []);
  assert.deepEqual(c.check("a2c", { jsonrpc: "2.0", id: 1, result: { sessionId: "s" } }), []);
  assert.deepEqual(c.check("a2c", { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }), []);
  assert.deepEqual(c.check("a2c", { jsonrpc: "2.0", id: "p1", method: "session/request_permission", params: { sessionId: "s", toolCall: { toolCallId: "t" }, options: [{ optionId: "a", name: "Allow", kind: "allow_once" }] } }), []);
  assert.deepEqual(c.check("c2a", { jsonrpc: "2.0", id: "p1", result: { outcome: { outcome: "selected", optionId: "a" } } }), []);
});

const defects = [
  ["an undeclared field in the initialize answer", { ...initResult, agentCapabilities: { ...initResult.agentCapabilities, providers: {} } }, /agentCapabilities\.providers: undeclared/],
  ["an undeclared field deep in a union branch", { ...initResult, authMethods: [{ id: "x", name: "y", extra: 1 }] }, /authMethods\[0\]\.extra: undeclared/],
  ["a wrong type", { ...initResult, protocolVersion: "1" }, /protocolVersion/],
  ["a missing required field", { agentCapabilities: {} }, /protocolVersion/],
];
test("reports each defect of a result", () => {
  for (const [name, result, want] of defects) {
    const got = checker().check("a2c", { jsonrpc: "2.0", id: 0, result });
    assert.ok(got.some((p) => want.test(p)), `${name}: ${got.join("\n") || "nothing reported"}`);
  }
});

test("reports defects of the envelope and of the pairing", () => {
  const c = checker();
  const cases = [
    [{ jsonrpc: "2.0", id: 0, result: initResult, extra: 1 }, /envelope: undeclared field extra/],
    [{ jsonrpc: "1.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "plan", entries: [] } } }, /jsonrpc/],
    [{ jsonrpc: "2.0", id: 99, result: {} }, /no pending request/],
    [{ jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } }, /exactly one of result and error/],
    [{ jsonrpc: "2.0", method: "session/prompt", params: {} }, /not in the schema for this direction/],
    [{ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "a", bold: true } } } }, /content\.bold: undeclared/],
    [{ jsonrpc: "2.0", id: 5, method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "plan", entries: [] } } }, /sent as a request/],
    [{ jsonrpc: "2.0", id: 1.5, method: "fs/read_text_file", params: { sessionId: "s", path: "/a" } }, /neither an integer nor a string/],
    [{ jsonrpc: "2.0", id: null, result: {} }, /a result with id null/],
    [[], /not a JSON object/],
  ];
  for (const [msg, want] of cases) {
    const got = c.check("a2c", msg);
    assert.ok(got.some((p) => want.test(p)), `${JSON.stringify(msg)}: ${got.join("\n") || "nothing reported"}`);
  }
});

test("a response is judged by the method of the request it answers", () => {
  const c = checker();
  c.check("c2a", { jsonrpc: "2.0", id: 7, method: "session/prompt", params: { sessionId: "s", prompt: [{ type: "text", text: "hi" }] } });
  const got = c.check("a2c", { jsonrpc: "2.0", id: 7, result: { sessionId: "s" } });
  assert.ok(got.some((p) => /session\/prompt result.*stopReason|sessionId: undeclared/.test(p)), got.join("\n"));
});
