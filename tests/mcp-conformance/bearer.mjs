// Preloaded into the conformance suite when it tests `arbor mcp serve --http` (which refuses a
// request without its bearer token): every fetch to the server carries the token from
// $ARBOR_MCP_TOKEN, as a configured MCP client would send it.
const token = process.env.ARBOR_MCP_TOKEN;
const original = globalThis.fetch;
globalThis.fetch = (input, init = {}) => {
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  if (token && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
  return original(input, { ...init, headers });
};
