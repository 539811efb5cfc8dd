#!/usr/bin/env node
// An MCP server behind OAuth 2.1 for Arbor's sign-in and refresh tests, with no dependencies:
// a Streamable HTTP endpoint answering JSON (not SSE) at /mcp, guarded by bearer tokens that
// expire after MOCK_OAUTH_TTL seconds (default 2), and the authorization server beside it —
// protected-resource and authorization-server metadata, dynamic client registration, an
// authorization endpoint that consents at once (redirecting with a code), and a token endpoint
// for the authorization_code (PKCE S256 checked) and refresh_token grants. GET /stats tells how
// many tokens each grant issued. Prints "listening <port>" once it listens.
import crypto from "node:crypto";
import http from "node:http";

const ttl = Number(process.env.MOCK_OAUTH_TTL ?? "2");
const clients = new Map(); // client_id → redirect_uris
const codes = new Map(); // code → {challenge, client_id, redirect_uri}
const access = new Map(); // token → expiry (ms)
const refresh = new Set();
const stats = { authorization_code: 0, refresh_token: 0, calls: 0, rejected: 0 };
let base = "";

const random = () => crypto.randomBytes(16).toString("hex");
function json(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
function readBody(req) {
  return new Promise((resolve) => {
    let data = "";
    req.on("data", (chunk) => (data += chunk));
    req.on("end", () => resolve(data));
  });
}
function issue(res, grant) {
  stats[grant] += 1;
  const token = random();
  const refreshToken = random();
  access.set(token, Date.now() + ttl * 1000);
  refresh.add(refreshToken);
  json(res, 200, {
    access_token: token,
    token_type: "Bearer",
    expires_in: ttl,
    refresh_token: refreshToken,
    scope: "mcp",
  });
}

async function handle(req, res) {
  const url = new URL(req.url, base);
  if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
    return json(res, 200, {
      resource: `${base}/mcp`,
      authorization_servers: [base],
      scopes_supported: ["mcp"],
    });
  }
  if (url.pathname.startsWith("/.well-known/oauth-authorization-server") || url.pathname.startsWith("/.well-known/openid-configuration")) {
    return json(res, 200, {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      scopes_supported: ["mcp"],
    });
  }
  if (url.pathname === "/register" && req.method === "POST") {
    const body = JSON.parse((await readBody(req)) || "{}");
    const id = `client-${random()}`;
    clients.set(id, body.redirect_uris ?? []);
    return json(res, 201, { ...body, client_id: id, token_endpoint_auth_method: "none" });
  }
  if (url.pathname === "/authorize") {
    const redirect = url.searchParams.get("redirect_uri");
    const client = url.searchParams.get("client_id");
    if (!clients.get(client)?.includes(redirect)) return json(res, 400, { error: "invalid_request" });
    const code = random();
    codes.set(code, { challenge: url.searchParams.get("code_challenge"), client, redirect });
    const back = new URL(redirect);
    back.searchParams.set("code", code);
    back.searchParams.set("state", url.searchParams.get("state") ?? "");
    back.searchParams.set("iss", base);
    res.writeHead(302, { location: back.toString() });
    return res.end();
  }
  if (url.pathname === "/token" && req.method === "POST") {
    const form = new URLSearchParams(await readBody(req));
    if (form.get("grant_type") === "authorization_code") {
      const found = codes.get(form.get("code"));
      codes.delete(form.get("code"));
      const verifier = form.get("code_verifier") ?? "";
      const challenge = crypto.createHash("sha256").update(verifier).digest("base64url");
      if (!found || found.challenge !== challenge) return json(res, 400, { error: "invalid_grant" });
      return issue(res, "authorization_code");
    }
    if (form.get("grant_type") === "refresh_token" && refresh.delete(form.get("refresh_token"))) {
      return issue(res, "refresh_token");
    }
    return json(res, 400, { error: "invalid_grant" });
  }
  if (url.pathname === "/stats") return json(res, 200, stats);
  if (url.pathname === "/mcp") {
    const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    const expiry = access.get(token);
    if (!expiry || expiry < Date.now()) {
      stats.rejected += 1;
      res.writeHead(401, {
        "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
      });
      return res.end();
    }
    if (req.method !== "POST") {
      res.writeHead(405);
      return res.end();
    }
    const message = JSON.parse((await readBody(req)) || "{}");
    if (message.id === undefined) {
      res.writeHead(202);
      return res.end();
    }
    const reply = (result) => json(res, 200, { jsonrpc: "2.0", id: message.id, result });
    switch (message.method) {
      case "initialize":
        return reply({
          protocolVersion: message.params?.protocolVersion ?? "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "oauth-mock", version: "1.0.0" },
        });
      case "tools/list":
        return reply({
          tools: [
            {
              name: "echo",
              description: "Echoes the text back",
              inputSchema: { type: "object", properties: { text: { type: "string" } } },
            },
          ],
        });
      case "tools/call":
        stats.calls += 1;
        return reply({ content: [{ type: "text", text: String(message.params?.arguments?.text ?? "") }] });
      default:
        return json(res, 200, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no method" } });
    }
  }
  res.writeHead(404);
  res.end();
}

const server = http.createServer((req, res) => {
  handle(req, res).catch(() => {
    res.writeHead(500);
    res.end();
  });
});
server.listen(0, "127.0.0.1", () => {
  base = `http://127.0.0.1:${server.address().port}`;
  console.log(`listening ${server.address().port}`);
});
