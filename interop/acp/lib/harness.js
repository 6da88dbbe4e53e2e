// The harness: a temporary MC_HOME and workspace with the fixture provider,
// the real binary spawned as `magi-code acp` on pipes, and a tap on the raw
// bytes of both directions. The SDK's client reads the same bytes the tap
// saw, but the SDK is lenient (it drops lines it cannot parse), so the tap
// checks every line itself: it must be one JSON object of at most
// MAX_FRAME bytes including its LF, valid for its method by the schema, with
// no undeclared field, and in an order the protocol allows (no update for a
// session before its session/new answer, none after a prompt's answer or a
// close).
import { execFileSync, spawn } from "node:child_process";
import { closeSync, constants, createReadStream, createWriteStream, mkdtempSync, mkdirSync, openSync, writeFileSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { FrameChecker, loadValidator } from "./validate.js";

export { acp };

// MAX_FRAME is the bound on one output frame, LF included.
export const MAX_FRAME = 65536;

// Zed's initialize request (its clientCapabilities and the _meta it sends).
export const ZED_INITIALIZE = {
  protocolVersion: 1,
  clientCapabilities: {
    fs: { readTextFile: true, writeTextFile: true },
    terminal: true,
    _meta: { terminal_output: true, "terminal-auth": true },
  },
  clientInfo: { name: "zed", title: "Zed", version: "0.220.0" },
};

// PLAIN_INITIALIZE advertises nothing optional.
export const PLAIN_INITIALIZE = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: "magi-code-interop", version: "0.0.0" },
};

export function binary() {
  const bin = process.env.MAGI_CODE_BIN;
  if (!bin) throw new Error("MAGI_CODE_BIN is not set (make build, then MAGI_CODE_BIN=$PWD/bin/magi-code)");
  return bin;
}

// Workspace is a temporary MC_HOME (home) and working directory (cwd) with
// global settings selecting the fixture provider.
const workspaces = new Set();
// A failed test leaves its workspace: remove every one at exit.
process.on("exit", () => {
  for (const w of workspaces) w.cleanup();
});

export class Workspace {
  constructor({ settings = "", script = null } = {}) {
    this.root = mkdtempSync(path.join(tmpdir(), "magi-acp-"));
    workspaces.add(this);
    this.home = path.join(this.root, "home");
    this.cwd = path.join(this.root, "work");
    mkdirSync(this.home, { recursive: true });
    mkdirSync(this.cwd, { recursive: true });
    this.scriptPath = path.join(this.root, "script.json");
    this.setScript(script);
    let s = 'provider = "fixture"\nmodel = "fixture-model"\n';
    if (script) s += `\n[providers.fixture]\nscript = ${JSON.stringify(this.scriptPath)}\n`;
    writeFileSync(path.join(this.home, "settings.toml"), s + settings);
  }

  // setScript writes the fixture script ({responses: [...]}); the provider
  // reads it when a process starts.
  setScript(script) {
    if (script) writeFileSync(this.scriptPath, JSON.stringify(script));
  }

  env() {
    return { MC_HOME: this.home, HOME: this.root, PATH: process.env.PATH };
  }

  cleanup() {
    workspaces.delete(this);
    rmSync(this.root, { recursive: true, force: true });
  }
}

// Agent is one spawned `magi-code acp` with its tap.
export class Agent {
  constructor(ws, { command = null, args = ["acp"], env = null, mutate = null, acp: speaksACP = true, validator }) {
    this.ws = ws;
    this.mutate = mutate;
    // A child that speaks another protocol (serve --stdio) is recorded,
    // not validated.
    this.speaksACP = speaksACP;
    const [cmd, ...cargs] = command ?? [binary(), ...args];
    // Real pipes (FIFOs) on fd 0 and 1, as an editor gives: node's own
    // 'pipe' stdio is a socket pair, which magi-code refuses like serve.
    this.fifoDir = mkdtempSync(path.join(ws.root, "fifo-"));
    const inPath = path.join(this.fifoDir, "in");
    const outPath = path.join(this.fifoDir, "out");
    execFileSync("mkfifo", ["-m", "600", inPath, outPath]);
    this.child = spawn("/bin/sh", ["-c", 'in=$1 out=$2; shift 2; exec "$@" <"$in" >"$out"', "sh", inPath, outPath, cmd, ...cargs], {
      cwd: ws.cwd,
      env: env ?? ws.env(),
      stdio: ["ignore", "ignore", "pipe"],
    });
    this.pid = this.child.pid;
    this.stdin = createWriteStream(inPath);
    this.stdout = createReadStream(outPath, { highWaterMark: 65536 });
    this.frames = []; // {dir, raw, msg}
    this.violations = [];
    this.stderr = "";
    this.checker = new FrameChecker(validator);
    this.waiters = [];
    this.sessions = new Map(); // sessionId -> "open" | "quiet" | "closed"
    this.loading = new Set(); // sessionIds of pending load/resume requests
    this.exited = new Promise((resolve) =>
      this.child.on("exit", (code, signal) => {
        // A child that died before opening its FIFOs leaves our opens
        // waiting: open the other ends once to release them.
        for (const [p, flags] of [
          [outPath, constants.O_WRONLY | constants.O_NONBLOCK],
          [inPath, constants.O_RDONLY | constants.O_NONBLOCK],
        ]) {
          try {
            closeSync(openSync(p, flags));
          } catch {}
        }
        resolve({ code, signal });
      }),
    );
    this.child.stderr.on("data", (d) => (this.stderr += d.toString()));
    this.stdin.on("error", () => {});
    this.stdout.on("error", () => {});
    let sdkController;
    this.readable = new ReadableStream({ start: (c) => (sdkController = c) });
    let pendingOut = Buffer.alloc(0);
    this.stdout.on("data", (chunk) => {
      pendingOut = Buffer.concat([pendingOut, chunk]);
      let i;
      const out = [];
      while ((i = pendingOut.indexOf(10)) >= 0) {
        const line = pendingOut.subarray(0, i + 1);
        pendingOut = pendingOut.subarray(i + 1);
        // mutate (tests of the tap itself) turns one output line into
        // others, as a faulty agent would have written them.
        for (const l of this.mutate ? this.mutate(line) : [line]) {
          this.onLine("a2c", l);
          out.push(l);
        }
      }
      if (pendingOut.length >= MAX_FRAME) this.violate(`a2c: a line longer than ${MAX_FRAME} bytes without its LF yet`);
      try {
        if (this.mutate) {
          for (const l of out) sdkController.enqueue(new Uint8Array(l));
        } else {
          sdkController.enqueue(new Uint8Array(chunk));
        }
      } catch {}
    });
    this.stdout.on("end", () => {
      if (pendingOut.length > 0) this.violate(`a2c: ${pendingOut.length} bytes after the last LF at EOF`);
      try {
        sdkController.close();
      } catch {}
    });
    let pendingIn = Buffer.alloc(0);
    this.writable = new WritableStream({
      write: (chunk) => {
        const b = Buffer.from(chunk);
        pendingIn = Buffer.concat([pendingIn, b]);
        let i;
        while ((i = pendingIn.indexOf(10)) >= 0) {
          const line = pendingIn.subarray(0, i + 1);
          pendingIn = pendingIn.subarray(i + 1);
          this.onLine("c2a", line);
        }
        return new Promise((resolve) => {
          if (this.stdin.destroyed || !this.stdin.writable) return resolve();
          this.stdin.write(b, () => resolve());
        });
      },
    });
    this.stream = acp.ndJsonStream(this.writable, this.readable);
  }

  violate(text) {
    this.violations.push(text);
  }

  onLine(dir, line, { expectInvalid = false } = {}) {
    const raw = line.toString("utf8");
    const rec = { dir, raw, msg: undefined, n: this.frames.length };
    this.frames.push(rec);
    if (dir === "a2c" && line.length > MAX_FRAME) this.violate(`a2c frame of ${line.length} bytes > ${MAX_FRAME}: ${raw.slice(0, 120)}`);
    try {
      rec.msg = JSON.parse(raw);
    } catch {
      if (!expectInvalid) this.violate(`${dir}: a line that is not JSON: ${raw.slice(0, 120)}`);
    }
    if (rec.msg !== undefined && !expectInvalid && this.speaksACP) {
      for (const p of this.checker.check(dir, rec.msg)) this.violate(p + ` in ${raw.slice(0, 300)}`);
      this.order(dir, rec.msg);
    }
    for (const w of [...this.waiters]) {
      if (w.pred(rec)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(rec);
      }
    }
  }

  // order applies the protocol's ordering rules to one frame.
  order(dir, msg) {
    if (!msg || typeof msg !== "object") return;
    const sid = msg.params?.sessionId;
    if (dir === "c2a") {
      if (typeof msg.method === "string" && Object.hasOwn(msg, "id") && typeof sid === "string") {
        if (msg.method === "session/load" || msg.method === "session/resume") this.loading.add(sid);
        if (this.sessions.get(sid) === "quiet") this.sessions.set(sid, "open");
      }
      return;
    }
    if (typeof msg.method === "string" && typeof sid === "string") {
      const st = this.sessions.get(sid);
      if (st === undefined && !this.loading.has(sid)) this.violate(`a2c ${msg.method} for session ${sid} before its session/new, load or resume answer`);
      else if (st === "quiet") this.violate(`a2c ${msg.method} (${msg.params?.update?.sessionUpdate ?? ""}) for session ${sid} after the prompt's answer`);
      else if (st === "closed") this.violate(`a2c ${msg.method} for session ${sid} after session/close`);
      return;
    }
    const a = this.checker.lastAnswered;
    if (!a || a.msg !== msg) return;
    this.checker.lastAnswered = null;
    if (msg.error) return;
    if (a.method === "session/new" && msg.result?.sessionId) this.sessions.set(msg.result.sessionId, "open");
    if ((a.method === "session/load" || a.method === "session/resume") && a.params?.sessionId) {
      this.loading.delete(a.params.sessionId);
      this.sessions.set(a.params.sessionId, "open");
    }
    if (a.method === "session/prompt" && a.params?.sessionId) this.sessions.set(a.params.sessionId, "quiet");
    if (a.method === "session/close" && a.params?.sessionId) this.sessions.set(a.params.sessionId, "closed");
  }

  // waitFrame resolves with the first frame (past or future) that pred
  // accepts; since is the index from which past frames count.
  waitFrame(pred, { since = 0, timeoutMs = 20000, what = "a frame" } = {}) {
    for (let i = since; i < this.frames.length; i++) if (pred(this.frames[i])) return Promise.resolve(this.frames[i]);
    return new Promise((resolve, reject) => {
      const w = { pred, resolve };
      const t = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        reject(new Error(`timed out waiting for ${what}; last frames:\n${this.frames.slice(-5).map((f) => f.dir + " " + f.raw.slice(0, 300)).join("")}`));
      }, timeoutMs);
      w.resolve = (r) => {
        clearTimeout(t);
        resolve(r);
      };
      this.waiters.push(w);
    });
  }

  // update waits for a session/update whose update matches pred.
  update(pred, opts = {}) {
    return this.waitFrame((f) => f.dir === "a2c" && f.msg?.method === "session/update" && pred(f.msg.params.update, f.msg.params), { what: "a session/update", ...opts });
  }

  // sendRaw writes bytes to the agent's stdin outside the SDK (malformed
  // input); they are recorded but not validated when expectInvalid.
  sendRaw(text, { expectInvalid = true } = {}) {
    const b = Buffer.from(text);
    this.onLine("c2a", b, { expectInvalid });
    this.stdin.write(b);
    // A deliberately odd request that still has an id expects an answer:
    // the checker pairs it without judging its method.
    try {
      const m = JSON.parse(text);
      if (expectInvalid && m && typeof m === "object" && Object.hasOwn(m, "id") && m.id !== null && typeof m.method === "string") {
        this.checker.pending.c2a.set(JSON.stringify(m.id), { method: m.method, ext: true });
      }
    } catch {}
  }

  // updatesOf returns the session/update params sent for sessionId, in order.
  updatesOf(sessionId, since = 0) {
    return this.frames.slice(since).filter((f) => f.dir === "a2c" && f.msg?.method === "session/update" && f.msg.params?.sessionId === sessionId).map((f) => f.msg.params.update);
  }

  // eof closes stdin and waits for the exit.
  async eof() {
    this.stdin.end();
    const exit = await this.exited;
    rmSync(this.fifoDir, { recursive: true, force: true });
    return exit;
  }

  // kill ends the agent and every process under it.
  kill() {
    for (const p of [this.pid, ...descendants(this.pid)]) {
      try {
        process.kill(p, "SIGKILL");
      } catch {}
    }
  }

  // clean reports every problem the tap found, and a non-empty stderr.
  problems() {
    const out = [...this.violations];
    if (this.stderr !== "") out.push(`stderr is not empty: ${this.stderr.slice(0, 500)}`);
    return out;
  }
}

let validatorP = null;

// startAgent spawns `magi-code acp` in ws.
export async function startAgent(ws, opts = {}) {
  validatorP ??= loadValidator();
  return new Agent(ws, { ...opts, validator: await validatorP });
}

// A Client is the SDK's client app with the handlers a scenario needs;
// permission decides session/request_permission (params -> response).
export function makeClient({ permission, onRequest = {} } = {}) {
  const app = acp.client({ name: "magi-code-interop" });
  app.onRequest(acp.methods.client.session.requestPermission, async (cx) => {
    if (!permission) return { outcome: { outcome: "cancelled" } };
    return permission(cx.params, cx);
  });
  app.onNotification(acp.methods.client.session.update, () => {});
  app.onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
    if (onRequest.readTextFile) return onRequest.readTextFile(params);
    let content = readFileSync(params.path, "utf8");
    if (params.line || params.limit) {
      const lines = content.split("\n");
      const start = Math.max(0, (params.line ?? 1) - 1);
      content = lines.slice(start, params.limit ? start + params.limit : undefined).join("\n");
    }
    return { content };
  });
  app.onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
    if (onRequest.writeTextFile) return onRequest.writeTextFile(params);
    writeFileSync(params.path, params.content);
    return {};
  });
  return app;
}

// descendants lists the pids whose parent chain reaches pid (Linux /proc).
export function descendants(pid) {
  const parent = new Map();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parent.set(Number(d), Number(fields[1]));
    } catch {}
  }
  const out = [];
  for (const [p] of parent) {
    let q = parent.get(p);
    for (let hops = 0; q && hops < 64; hops++) {
      if (q === pid) {
        out.push(p);
        break;
      }
      q = parent.get(q);
    }
  }
  return out;
}

// alive reports whether pid still exists and is not a zombie.
export function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

// textOf concatenates the text of agent_message_chunk updates, by messageId.
export function messages(updates, kind = "agent_message_chunk") {
  const out = [];
  for (const u of updates) {
    if (u.sessionUpdate !== kind) continue;
    const text = u.content?.type === "text" ? u.content.text : "";
    const last = out[out.length - 1];
    if (last && last.messageId === (u.messageId ?? null)) last.text += text;
    else out.push({ messageId: u.messageId ?? null, text });
  }
  return out;
}

// serveTurn runs one turn through `magi-code serve --stdio` (the
// local-agent protocol, as Mission Control speaks it) in ws and returns
// its session id once the run has finished and the child has exited.
export async function serveTurn(ws, prompt) {
  const child = await startAgent(ws, { args: ["serve", "--stdio"], acp: false });
  const send = (id, method, params) =>
    child.stdin.write(JSON.stringify({ protocol: "magi-code.local-agent", version: 1, id, method, params }) + "\n");
  const result = async (id) => {
    const f = await child.waitFrame((f) => f.dir === "a2c" && f.msg?.type === "response" && f.msg.id === id, { what: `serve's answer to ${id}` });
    if (f.msg.error) throw new Error(`serve ${id}: ${JSON.stringify(f.msg.error)}`);
    return f.msg.result;
  };
  try {
    send("i", "initialize", { required_capabilities: ["session.create", "turn.start"] });
    await result("i");
    send("c", "session.create", {});
    const { session_id: sid } = await result("c");
    send("t", "turn.start", { session_id: sid, prompt });
    await result("t");
    await child.waitFrame((f) => f.dir === "a2c" && f.msg?.event === "run.finished", { what: "run.finished" });
    const exit = await child.eof();
    if (exit.code !== 0) throw new Error(`serve exited ${exit.code}`);
    return sid;
  } finally {
    child.kill();
  }
}
