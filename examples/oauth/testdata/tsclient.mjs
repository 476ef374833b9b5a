// The TypeScript SDK's MCP client against examples/oauth: discovery from
// the 401, dynamic registration, PKCE, consent (the Go test signs in with
// headless Chromium when it reads an AUTHORIZE line), tool calls, a
// refresh, and step-up after an insufficient_user_authentication
// challenge. Prints RESULT lines and DONE; exits non-zero on failure.
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const mcpURL = process.env.MCP_URL;
let deliver;
const callback = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://127.0.0.1');
  res.end('Signed in; you can close this page.');
  if (u.pathname === '/callback' && deliver) deliver(u.searchParams);
});
await new Promise((r) => callback.listen(0, '127.0.0.1', r));
const redirectUrl = `http://127.0.0.1:${callback.address().port}/callback`;

let lastChallenge = '';
let refreshes = 0;
const recordingFetch = async (url, init) => {
  if (String(url).endsWith('/oauth/token') && String(init?.body ?? '').includes('grant_type=refresh_token')) refreshes++;
  const res = await fetch(url, init);
  const ch = res.headers.get('www-authenticate');
  if (ch) lastChallenge = ch;
  return res;
};

class Provider {
  constructor() { this.info = undefined; this.toks = undefined; this.verifier = ''; this.extra = null; }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return { client_name: 'TypeScript SDK client', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none', application_type: 'native' };
  }
  clientInformation() { return this.info; }
  saveClientInformation(info) { this.info = info; }
  tokens() { return this.toks; }
  saveTokens(t) { this.toks = t; }
  redirectToAuthorization(u) {
    if (this.extra) for (const [k, v] of Object.entries(this.extra)) u.searchParams.set(k, v);
    console.log((this.extra ? 'AUTHORIZE-MFA ' : 'AUTHORIZE ') + u.toString());
  }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  invalidateCredentials(scope) { if (scope === 'all' || scope === 'tokens') this.toks = undefined; }
}

async function connect(provider) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const transport = new StreamableHTTPClientTransport(new URL(mcpURL), { authProvider: provider, fetch: recordingFetch });
    const client = new Client({ name: 'ts-e2e', version: '1.0.0' });
    try {
      await client.connect(transport);
      return client;
    } catch (e) {
      if (!(e instanceof UnauthorizedError)) throw e;
      const params = await new Promise((r) => { deliver = r; });
      if (params.get('error')) throw new Error('authorization error ' + params.get('error'));
      await transport.finishAuth(params.get('code'));
    }
  }
  throw new Error('could not connect after authorizing');
}

const text = (r) => r.content.map((c) => c.text).join(' ');
const provider = new Provider();
const client = await connect(provider);
console.log('REGISTERED ' + provider.info.client_id);
console.log('RESULT ' + text(await client.callTool({ name: 'add_note', arguments: { text: 'from TypeScript' } })));
console.log('RESULT ' + text(await client.callTool({ name: 'list_notes', arguments: {} })));

// A spoiled access token: the server answers 401 and the SDK refreshes.
provider.toks = { ...provider.toks, access_token: 'spoiled' };
console.log('RESULT ' + text(await client.callTool({ name: 'whoami', arguments: {} })));
if (refreshes < 1) throw new Error('the SDK did not refresh');
console.log('REFRESHED ' + refreshes);

// Step-up: deleting needs a multi-factor sign-in.
try {
  await client.callTool({ name: 'delete_all_notes', arguments: {} });
  throw new Error('delete_all_notes worked without a multi-factor sign-in');
} catch (e) {
  if (!/insufficient_user_authentication/.test(lastChallenge)) throw e;
}
const acr = /acr_values="([^"]*)"/.exec(lastChallenge)?.[1];
const maxAge = /max_age="?(\d+)/.exec(lastChallenge)?.[1];
console.log('CHALLENGED ' + acr + ' ' + maxAge);
provider.extra = { acr_values: acr, ...(maxAge ? { max_age: maxAge } : {}) };
provider.toks = undefined;
const stepped = await connect(provider);
console.log('RESULT ' + text(await stepped.callTool({ name: 'delete_all_notes', arguments: {} })));
console.log('RESULT ' + text(await stepped.callTool({ name: 'whoami', arguments: {} })));
console.log('DONE');
callback.close();
process.exit(0);
