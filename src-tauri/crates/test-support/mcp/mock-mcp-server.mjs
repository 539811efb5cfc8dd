#!/usr/bin/env node
// A stdio MCP server that misbehaves on request, for Arbor's MCP client tests. Independent of
// Arbor's code and of any SDK: JSON-RPC lines read and written by hand, so it can break the
// protocol in ways a well-behaved SDK never would.
//
// Tools (each listed unless MOCK_MCP_TOOLS names a JSON file with the tool list to offer —
// read again on every `tools/list`, so a test can change a description between two runs):
//   echo {text}      → the text back
//   env {name}       → the value of an environment variable, or "(unset)"
//   image            → a 1×1 PNG
//   big {bytes}      → that many "x" characters (default 10 MB)
//   hang             → never answers
//   crash            → exits with status 3 before answering
//   malformed        → writes a line that is not JSON, then answers nothing
//   flood {bytes}    → writes that much to stderr (default 5 MB), then answers "flooded"
//   ask {question}   → asks the person (elicitation/create: a name with a default, a required
//                      whole-number age, a colour to choose) and answers with the client's
//                      reply as JSON, or says the client declared no elicitation
// MOCK_MCP_CRASH_ON_START=1 exits before the handshake; MOCK_MCP_LOG (a file) records each
// request's method, one per line.
import fs from "node:fs";
import readline from "node:readline";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const DEFAULT_TOOLS = [
  ["echo", "Echoes the text back", { text: { type: "string" } }, ["text"]],
  ["env", "Tells the value of an environment variable", { name: { type: "string" } }, ["name"]],
  ["image", "Returns a tiny PNG", {}, []],
  ["big", "Returns a very long text", { bytes: { type: "integer" } }, []],
  ["hang", "Never answers", {}, []],
  ["crash", "Exits before answering", {}, []],
  ["malformed", "Writes a line that is not JSON", {}, []],
  ["flood", "Floods stderr, then answers", { bytes: { type: "integer" } }, []],
  ["ask", "Asks the person a question", { question: { type: "string" } }, []],
].map(([name, description, properties, required]) => ({
  name,
  description,
  inputSchema: { type: "object", properties, required },
}));

if (process.env.MOCK_MCP_CRASH_ON_START === "1") {
  process.stderr.write("mock: crashing on start\n");
  process.exit(2);
}

function tools() {
  const file = process.env.MOCK_MCP_TOOLS;
  return file ? JSON.parse(fs.readFileSync(file, "utf8")) : DEFAULT_TOOLS;
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function text(value) {
  return { content: [{ type: "text", text: value }] };
}

let clientCapabilities = {};
const asked = new Map();
let nextAsk = 1;

// Sends the person a form; the call's answer waits for the client's reply.
function ask(callId, args) {
  if (!clientCapabilities.elicitation) return text("the client declared no elicitation");
  const id = `ask-${nextAsk++}`;
  asked.set(id, callId);
  send({
    jsonrpc: "2.0",
    id,
    method: "elicitation/create",
    params: {
      mode: "form",
      message: args.question ?? "Who are you?",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", title: "Your name", default: "Ada" },
          age: { type: "integer", description: "In years", minimum: 0 },
          colour: { type: "string", enum: ["red", "green"], enumNames: ["Red", "Green"] },
        },
        required: ["age"],
      },
    },
  });
  return undefined;
}

function call(name, args, callId) {
  switch (name) {
    case "ask":
      return ask(callId, args);
    case "echo":
      return text(String(args.text ?? ""));
    case "env":
      return text(process.env[args.name] ?? "(unset)");
    case "image":
      return { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
    case "big":
      return text("x".repeat(args.bytes ?? 10 * 1024 * 1024));
    case "hang":
      return undefined;
    case "crash":
      process.exit(3);
      return undefined;
    case "malformed":
      process.stdout.write("this is {not json\n");
      return undefined;
    case "flood": {
      const line = "e".repeat(1023) + "\n";
      let left = args.bytes ?? 5 * 1024 * 1024;
      while (left > 0) {
        process.stderr.write(line);
        left -= line.length;
      }
      return text("flooded");
    }
    default:
      return { content: [{ type: "text", text: `no tool ${name}` }], isError: true };
  }
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  if (process.env.MOCK_MCP_LOG) fs.appendFileSync(process.env.MOCK_MCP_LOG, `${request.method}\n`);
  if (request.id === undefined) return;
  if (request.method === undefined) {
    // The client's reply to a question: the waiting call answers with it.
    const callId = asked.get(request.id);
    if (callId === undefined) return;
    asked.delete(request.id);
    const answer = request.error ? { error: request.error } : request.result;
    return send({ jsonrpc: "2.0", id: callId, result: text(`answer: ${JSON.stringify(answer)}`) });
  }
  const reply = (result) => send({ jsonrpc: "2.0", id: request.id, result });
  switch (request.method) {
    case "initialize":
      clientCapabilities = request.params?.capabilities ?? {};
      return reply({
        protocolVersion: request.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "arbor-mock-mcp", version: "1.0.0" },
      });
    case "ping":
      return reply({});
    case "tools/list":
      return reply({ tools: tools() });
    case "tools/call": {
      const result = call(request.params?.name, request.params?.arguments ?? {}, request.id);
      if (result !== undefined) reply(result);
      return;
    }
    default:
      return send({
        jsonrpc: "2.0",
        id: request.id,
        error: { code: -32601, message: `no method ${request.method}` },
      });
  }
});
input.on("close", () => process.exit(0));
