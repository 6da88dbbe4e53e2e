// Frame validation against the ACP v1 schema bundled in
// @agentclientprotocol/sdk (schema/v1/schema.json), method by method.
//
// Two checks per frame:
//  1. the schema itself (ajv, draft 2020-12): the envelope, then the params of
//     a request or notification by the definition the schema names for that
//     method (x-method / x-side), and the result of a response by the
//     definition for the method of the request it answers;
//  2. undeclared fields: a walker over the schema (not a modified schema) that
//     follows the value through $ref, allOf and the anyOf/oneOf branches the
//     value matches, and reports every property of an object that no
//     applicable object definition names. `_meta` is allowed everywhere (the
//     protocol's extension point) and not looked into; an object whose
//     definitions name no properties at all (rawInput, error data, _meta, the
//     params of an extension method) is free; a map (additionalProperties with
//     a schema) has its values walked.
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";

const require = createRequire(import.meta.url);
const schemaPath = require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json");
export const SCHEMA_PATH = schemaPath;

const ENVELOPE_REQUEST = ["jsonrpc", "id", "method", "params"];
const ENVELOPE_NOTIFICATION = ["jsonrpc", "method", "params"];

function escapePointer(s) {
  return String(s).replace(/~/g, "~0").replace(/\//g, "~1");
}

function unescapePointer(s) {
  return s.replace(/~1/g, "/").replace(/~0/g, "~");
}

export class SchemaValidator {
  constructor(schema) {
    this.schema = schema;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false });
    this.ajv.addSchema(schema, "acp");
    this.compiled = new Map();
    // method -> { request, response } definition names, per side that handles it.
    this.agentMethods = new Map(); // handled by the agent: the client sends them
    this.clientMethods = new Map(); // handled by the client: the agent sends them
    this.protocolMethods = new Map();
    for (const [name, def] of Object.entries(schema.$defs)) {
      const m = def["x-method"];
      if (!m) continue;
      const table = def["x-side"] === "agent" ? this.agentMethods : def["x-side"] === "client" ? this.clientMethods : this.protocolMethods;
      const e = table.get(m) || {};
      if (name.endsWith("Response")) e.response = name;
      else e.params = name; // ...Request or ...Notification
      if (name.endsWith("Notification")) e.notification = true;
      table.set(m, e);
    }
  }

  // fn returns the compiled validator of the schema node at pointer ptr
  // ("/$defs/X/oneOf/3").
  fn(ptr) {
    let f = this.compiled.get(ptr);
    if (!f) {
      f = this.ajv.compile({ $ref: "acp#" + ptr });
      this.compiled.set(ptr, f);
    }
    return f;
  }

  node(ptr) {
    let n = this.schema;
    for (const part of ptr.split("/").slice(1)) n = n?.[unescapePointer(part)];
    return n;
  }

  // validate checks value against the node at ptr and for undeclared fields;
  // it returns a list of problems (strings), empty when the value is clean.
  validate(ptr, value, where) {
    const out = [];
    const f = this.fn(ptr);
    if (!f(value)) {
      for (const e of f.errors.slice(0, 8)) out.push(`${where}${e.instancePath}: ${e.message} (${e.schemaPath})`);
      return out;
    }
    this.undeclared(ptr, value, where, out);
    return out;
  }

  // applicable collects the schema nodes that apply to value at ptr.
  applicable(ptr, value, acc, depth = 0) {
    const n = this.node(ptr);
    if (n === undefined) throw new Error("no schema node at " + ptr);
    if (typeof n !== "object" || n === null || depth > 64) return;
    acc.push(ptr);
    if (typeof n.$ref === "string") {
      if (!n.$ref.startsWith("#")) throw new Error("external $ref " + n.$ref);
      this.applicable(n.$ref.slice(1), value, acc, depth + 1);
    }
    (n.allOf || []).forEach((_, i) => this.applicable(`${ptr}/allOf/${i}`, value, acc, depth + 1));
    for (const kw of ["anyOf", "oneOf"]) {
      (n[kw] || []).forEach((_, i) => {
        const p = `${ptr}/${kw}/${i}`;
        if (this.fn(p)(value)) this.applicable(p, value, acc, depth + 1);
      });
    }
  }

  undeclared(ptr, value, where, out) {
    if (value === null || typeof value !== "object") return;
    const acc = [];
    this.applicable(ptr, value, acc);
    if (Array.isArray(value)) {
      for (const p of acc) {
        const n = this.node(p);
        if (n.items && typeof n.items === "object") value.forEach((v, i) => this.undeclared(`${p}/items`, v, `${where}[${i}]`, out));
        if (Array.isArray(n.prefixItems)) n.prefixItems.forEach((_, i) => i < value.length && this.undeclared(`${p}/prefixItems/${i}`, value[i], `${where}[${i}]`, out));
      }
      return;
    }
    const withProps = acc.filter((p) => this.node(p).properties);
    const maps = acc.filter((p) => {
      const ap = this.node(p).additionalProperties;
      return ap && typeof ap === "object";
    });
    for (const [k, v] of Object.entries(value)) {
      if (k === "_meta") continue;
      const declaring = withProps.filter((p) => Object.hasOwn(this.node(p).properties, k));
      if (declaring.length > 0) {
        for (const p of declaring) this.undeclared(`${p}/properties/${escapePointer(k)}`, v, `${where}.${k}`, out);
      } else if (withProps.length > 0) {
        out.push(`${where}.${k}: undeclared field (not named by ${withProps.map((p) => p.replace(/^\/\$defs\//, "")).join(", ")})`);
      } else {
        for (const p of maps) this.undeclared(`${p}/additionalProperties`, v, `${where}.${k}`, out);
      }
    }
  }

  // paramsDef names the definition for the params of method sent in direction
  // dir ("c2a": the client sends, the agent handles; "a2c" the other way);
  // null for a method the schema does not know.
  methodEntry(dir, method) {
    if (this.protocolMethods.has(method)) return { ...this.protocolMethods.get(method), protocol: true };
    const table = dir === "c2a" ? this.agentMethods : this.clientMethods;
    return table.get(method) || null;
  }
}

// FrameChecker follows one connection's frames in both directions, pairs
// responses with the requests they answer, and validates each frame.
export class FrameChecker {
  constructor(validator) {
    this.v = validator;
    this.pending = { c2a: new Map(), a2c: new Map() }; // requests sent in a direction, by id
    this.problems = [];
    this.count = { c2a: 0, a2c: 0 };
  }

  problem(dir, n, text) {
    this.problems.push(`${dir} frame ${n}: ${text}`);
  }

  // check validates one decoded frame travelling in direction dir.
  // It returns the problems found for this frame.
  check(dir, msg) {
    const n = ++this.count[dir];
    const before = this.problems.length;
    const p = (t) => this.problem(dir, n, t);
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
      p("not a JSON object");
      return this.problems.slice(before);
    }
    if (msg.jsonrpc !== "2.0") p(`jsonrpc is ${JSON.stringify(msg.jsonrpc)}, not "2.0"`);
    const hasId = Object.hasOwn(msg, "id");
    if (typeof msg.method === "string") {
      const allowed = hasId ? ENVELOPE_REQUEST : ENVELOPE_NOTIFICATION;
      for (const k of Object.keys(msg)) if (!allowed.includes(k)) p(`envelope: undeclared field ${k}`);
      if (hasId) this.checkId(p, msg.id, false);
      const entry = this.v.methodEntry(dir, msg.method);
      const params = Object.hasOwn(msg, "params") ? msg.params : {};
      if (entry === null) {
        if (!msg.method.startsWith("_")) p(`method ${msg.method} is not in the schema for this direction and is no extension method (_name)`);
        else if (hasId) this.pending[dir].set(JSON.stringify(msg.id), { method: msg.method, ext: true });
        return this.problems.slice(before);
      }
      if (hasId === Boolean(entry.notification)) p(`${msg.method} sent as a ${hasId ? "request" : "notification"}; the schema has it as a ${entry.notification ? "notification" : "request"}`);
      for (const t of this.v.validate(`/$defs/${entry.params}`, params, `${msg.method} params`)) p(t);
      if (hasId) {
        const key = JSON.stringify(msg.id);
        if (this.pending[dir].has(key)) p(`request id ${key} reused while pending`);
        this.pending[dir].set(key, { method: msg.method, entry, params });
      }
      return this.problems.slice(before);
    }
    // A response answers a request sent the other way.
    const other = dir === "c2a" ? "a2c" : "c2a";
    for (const k of Object.keys(msg)) if (!["jsonrpc", "id", "result", "error"].includes(k)) p(`envelope: undeclared field ${k}`);
    if (!hasId) {
      p("neither a request, a notification nor a response (no method, no id)");
      return this.problems.slice(before);
    }
    const hasResult = Object.hasOwn(msg, "result");
    const hasError = Object.hasOwn(msg, "error");
    if (hasResult === hasError) p("a response needs exactly one of result and error");
    this.checkId(p, msg.id, true);
    let req = null;
    if (msg.id !== null) {
      const key = JSON.stringify(msg.id);
      req = this.pending[other].get(key) || null;
      if (!req) p(`response to id ${key}, which no pending request of the peer carries`);
      this.pending[other].delete(key);
    } else if (!hasError) {
      p("a result with id null");
    }
    if (hasError) {
      for (const t of this.v.validate("/$defs/Error", msg.error, "error")) p(t);
    } else if (hasResult && req && !req.ext) {
      if (!req.entry.response) p(`a result for ${req.method}, which the schema gives no response`);
      else for (const t of this.v.validate(`/$defs/${req.entry.response}`, msg.result, `${req.method} result`)) p(t);
    }
    if (req) this.lastAnswered = { dir, method: req.method, params: req.params, msg };
    return this.problems.slice(before);
  }

  checkId(p, id, nullable) {
    if (id === null) {
      if (!nullable) p("request id null");
      return;
    }
    if (typeof id === "string") return;
    if (typeof id === "number" && Number.isInteger(id)) return;
    p(`id ${JSON.stringify(id)} is neither an integer nor a string`);
  }
}

let shared = null;

// loadValidator reads the bundled v1 schema once.
export async function loadValidator() {
  if (!shared) {
    const { readFile } = await import("node:fs/promises");
    shared = new SchemaValidator(JSON.parse(await readFile(schemaPath, "utf8")));
  }
  return shared;
}
