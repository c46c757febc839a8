// Screenshot of a trace in Arize Phoenix's UI, for the docs (docs/img/phoenix-trace.png):
// Debian's Chromium (/usr/bin/chromium, `apt-get install chromium`) driven headless by
// playwright-core (a devDependency of tests/node: `npm ci --prefix tests/node`).
//
//   node scripts/phoenix-screenshot.mjs TRACE_URL OUT.png [SPAN_NAME...]
//
// TRACE_URL is a trace's page, as scripts/phoenix-demo.py prints it. The page is rendered by
// JavaScript from GraphQL queries: the shot is taken once every SPAN_NAME (by default the four
// spans of a translated chat completion) is on screen and the network is quiet. The browser
// gets a fresh profile and reaches nothing but loopback, where Phoenix is.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const require = createRequire(new URL("../tests/node/package.json", import.meta.url));
const { chromium } = require("playwright-core");

const CHROMIUM = process.env.CHROMIUM_BIN || "/usr/bin/chromium";
const DEFAULT_SPANS = [
  "POST /v1/chat/completions",
  "chat main",
  "translate set_reminder",
  "chat translator",
];

const [url, out, ...names] = process.argv.slice(2);
if (!url || !out) {
  console.error("usage: node scripts/phoenix-screenshot.mjs TRACE_URL OUT.png [SPAN_NAME...]");
  process.exit(2);
}
const spans = names.length ? names : DEFAULT_SPANS;

const profile = mkdtempSync(join(tmpdir(), "phoenix-shot-"));
// A persistent context, because Playwright takes the profile directory only this way.
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  viewport: { width: 1400, height: 900 },
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    // The flags above still leave Chromium looking up Google's sign-in, update and autofill
    // hosts: every name but loopback's fails inside the browser, before any DNS query.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--disable-features=AutofillServerCommunication,OptimizationHints,MediaRouter",
    "--disable-domain-reliability",
    "--no-pings",
  ],
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(url, { waitUntil: "networkidle", timeout: 60_000 });
  for (const name of spans) {
    await page.getByText(name, { exact: true }).first().waitFor({ state: "visible", timeout: 30_000 });
  }
  // Whatever the spans' details still load, and fonts and transitions settle.
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(1000);
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
