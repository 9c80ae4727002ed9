// The TypeScript SDK's MCP client (the one most assistants embed) against a running Lorekeep:
// node client.mjs <endpoint> with LOREKEEP_ADMIN, LOREKEEP_VIEWER and LOREKEEP_CAMPAIGN set.
// It prints one line per check ("ok ..." or "FAIL ...") and exits 1 on any failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const endpoint = new URL(process.argv[2]);
const campaign = Number(process.env.LOREKEEP_CAMPAIGN);
let failed = 0;
const check = (what, cond, detail) => {
  if (cond) console.log(`ok ${what}`);
  else { failed++; console.log(`FAIL ${what}: ${JSON.stringify(detail)}`); }
};

async function connect(token) {
  const client = new Client({ name: "lorekeep-ts-test", version: "1.0.0" });
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));
  return client;
}

const structured = (res) => res.structuredContent ?? {};

try {
  const admin = await connect(process.env.LOREKEEP_ADMIN);
  check("initialize", admin.getServerVersion()?.name === "lorekeep", admin.getServerVersion());
  // listTools parses every tool's schemas (a `true` property schema fails the whole list).
  const { tools } = await admin.listTools();
  check("listTools", tools.length >= 12 && tools.every((t) => t.inputSchema?.type === "object" && t.outputSchema?.type === "object"), tools.map((t) => t.name));

  // callTool validates structuredContent against each tool's output schema.
  const calls = [
    ["list_campaigns", {}],
    ["get_campaign", { campaign_id: campaign }],
    ["create_records", { campaign_id: campaign, module: "characters", idempotency_key: "ts-1", items: [{ name: "Tess", entry: "Met **Ann** at [location:1]." }] }],
    ["list_records", { campaign_id: campaign, module: "characters", limit: 5 }],
    ["search", { campaign_id: campaign, term: "Tess" }],
  ];
  const out = {};
  calls.push(["changes_since", { campaign_id: campaign, since: new Date(Date.now() - 3600e3).toISOString() }]);
  for (const [name, args] of calls) {
    const res = await admin.callTool({ name, arguments: args });
    out[name] = structured(res);
    check(`callTool ${name}`, !res.isError, res.content);
  }
  const tess = out.create_records.results?.[0]?.record;
  check("create answers Markdown", tess?.entry === "Met **Ann** at [location:1].", tess);
  const eid = tess?.entity_id;
  check("changes_since tells the new record", out.changes_since.changed?.some((e) => e.id === eid), out.changes_since);
  for (const [name, args] of [
    ["get_records", { campaign_id: campaign, items: [{ entity_id: eid }], posts: true }],
    ["posts", { campaign_id: campaign, entity_id: eid, action: "create", fields: { name: "Recap", entry: "- one\n- two" } }],
    ["entity_resources", { campaign_id: campaign, entity_id: eid, resource: "attributes", action: "list" }],
    ["update_records", { campaign_id: campaign, module: "characters", items: [{ id: tess?.id, title: "Bard" }] }],
    ["delete_records", { campaign_id: campaign, module: "characters", ids: [tess?.id], confirm: true }],
  ]) {
    const res = await admin.callTool({ name, arguments: args });
    check(`callTool ${name}`, !res.isError && structured(res).failed === 0, res.content);
  }

  const bad = await admin.callTool({ name: "list_records", arguments: { campaign_id: campaign, module: "characters", limit: 1000 } });
  check("bad argument is a tool error naming it", bad.isError && JSON.stringify(bad.content).includes("limit"), bad.content);

  const viewer = await connect(process.env.LOREKEEP_VIEWER);
  const refused = structured(await viewer.callTool({ name: "create_records", arguments: { campaign_id: campaign, module: "characters", items: [{ name: "Nope" }] } }));
  check("a viewer's create is refused", refused.results?.[0]?.status === 403 && refused.failed === 1, refused);

  // Without initialize (stateless): a bare tools/list.
  const bare = await fetch(endpoint, { method: "POST", headers: { Authorization: `Bearer ${process.env.LOREKEEP_ADMIN}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }) });
  const bareBody = await bare.json();
  check("tools/list without initialize", bare.status === 200 && bareBody.result?.tools?.length >= 12, bareBody);

  let unauth;
  try { await connect(""); } catch (e) { unauth = e; }
  check("no token: the client is refused", unauth !== undefined, String(unauth));
  const raw = await fetch(endpoint, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: "{}" });
  check("no token: 401 with WWW-Authenticate", raw.status === 401 && (raw.headers.get("www-authenticate") ?? "").includes("resource_metadata="), raw.status);
} catch (e) {
  failed++;
  console.log(`FAIL ${e?.stack ?? e}`);
}
console.log(failed ? `${failed} failed` : "all passed");
process.exit(failed ? 1 : 0);
