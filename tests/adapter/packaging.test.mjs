// What Paseo checks before and while loading the plugin: manifest, icon, module layout, types,
// the preparation script, and loading the entry the way Paseo does (esbuild bundle + eval).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import {
  adapterModule,
  adapterSources,
  bridgeBinary,
  bridgeChildren,
  connectRequest,
  fakeServer,
  isAlive,
  loadLikePaseo,
  readPluginJson,
  recorder,
  repoRoot,
  requireBinary,
  workspaceVersion,
} from "./harness.mjs";

const require = createRequire(import.meta.url);
const read = (file) => readFileSync(path.join(repoRoot, file), "utf8");

test("paseo-plugin.json has what Paseo 0.9 requires", () => {
  const manifest = JSON.parse(read("paseo-plugin.json"));
  assert.deepEqual(Object.keys(manifest).sort(), ["build", "description", "id", "requirements"]);
  assert.equal(manifest.id, "agent-bridge");
  assert.match(manifest.id, /^[a-z][a-z0-9-]*$/);
  assert.ok(manifest.description.trim().length > 0);
  assert.deepEqual(Object.keys(manifest.requirements), ["paseo"]);
  assert.equal(manifest.requirements.paseo, ">=0.9.2");
  assert.ok(Array.isArray(manifest.build) && manifest.build.length > 0);
  for (const argv of manifest.build) {
    assert.ok(Array.isArray(argv) && argv.length > 0);
    for (const arg of argv) assert.equal(typeof arg, "string");
  }
  assert.equal(read("plugin.json") && readPluginJson().icon, "icon.svg");
});

test("icon.svg is a small self-contained SVG", () => {
  const file = path.join(repoRoot, readPluginJson().icon);
  assert.ok(statSync(file).isFile());
  assert.ok(statSync(file).size < 64 * 1024);
  const svg = readFileSync(file, "utf8");
  assert.match(svg, /^<svg\b[^>]*\bviewBox="0 0 24 24"/);
  assert.match(svg, /<\/svg>\s*$/);
  assert.doesNotMatch(svg, /<script|<style|foreignObject|javascript:/i);
  assert.doesNotMatch(svg, /\son[a-z]+\s*=/i, "no event-handler attributes");
  assert.doesNotMatch(svg, /\sstyle\s*=/i, "presentation attributes only");
  for (const [, href] of svg.matchAll(/(?:xlink:)?href\s*=\s*"([^"]*)"/g)) {
    assert.ok(href.startsWith("#"), `only fragment references: ${href}`);
  }
});

// The one exception: Paseo's own SDK module, which its runtime require serves inside Paseo; the
// event guard asks for it in a try block and does without it elsewhere.
const HOST_SDK = { file: "server/event-guard.ts", specifier: "@getpaseo/plugin/server/provider" };

test("the adapter imports Node built-ins only and keeps modules under server/", () => {
  let hostSdk = 0;
  for (const file of adapterSources()) {
    assert.ok(file === "index.server.ts" || file.startsWith("server/"), file);
    const source = read(file);
    for (const match of source.matchAll(/\bfrom\s+"([^"]+)"|\brequire\(\s*"([^"]+)"/g)) {
      const specifier = match[1] ?? match[2];
      if (file === HOST_SDK.file && specifier === HOST_SDK.specifier && match[2]) {
        hostSdk += 1;
        continue;
      }
      assert.ok(
        specifier.startsWith("node:") || specifier.startsWith("./") || specifier.startsWith("../"),
        `${file} imports ${specifier}`,
      );
    }
  }
  assert.equal(hostSdk, 1, `${HOST_SDK.file} asks for ${HOST_SDK.specifier} once`);
});

test("index.server.ts has the default export shape Paseo's compiler accepts", () => {
  const ts = require("typescript");
  const source = ts.createSourceFile("index.server.ts", read("index.server.ts"), ts.ScriptTarget.Latest);
  const defaults = source.statements.filter(
    (s) =>
      ts.isExportAssignment(s) ||
      (ts.canHaveModifiers(s) &&
        (ts.getModifiers(s) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)),
  );
  assert.equal(defaults.length, 1, "exactly one default export");
  const [fn] = defaults;
  assert.ok(ts.isFunctionDeclaration(fn), "a function declaration");
  assert.equal(fn.parameters.length, 1, "one context parameter");
  assert.ok(ts.isIdentifier(fn.parameters[0].name), "a named context parameter");
  assert.ok(fn.body && ts.isBlock(fn.body), "a block body");
});

test("the adapter type-checks under strict settings", () => {
  const ts = require("typescript");
  const program = ts.createProgram([path.join(repoRoot, "index.server.ts")], {
    noEmit: true,
    strict: true,
    exactOptionalPropertyTypes: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    noImplicitReturns: true,
    noFallthroughCasesInSwitch: true,
    isolatedModules: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: ["node"],
    typeRoots: [path.join(path.dirname(require.resolve("@types/node/package.json")), "..")],
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) =>
    ts.formatDiagnostic(d, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => repoRoot,
      getNewLine: () => "\n",
    }),
  );
  assert.deepEqual(diagnostics, []);
  const checked = program
    .getSourceFiles()
    .map((f) => path.relative(repoRoot, f.fileName))
    .filter((f) => !f.startsWith(".."));
  for (const file of adapterSources()) assert.ok(checked.includes(file), `${file} is checked`);
});

/** This machine as Node names it, the platform package's name and its binary's name. */
const HOST = `${process.platform}-${process.arch}`;
const EXE = process.platform === "win32" ? "agent-bridge.exe" : "agent-bridge";

/** Writes a stand-in binary that prints `version` for `--version` (and fails when `broken`). */
function fakeBinary(file, { version = "agent-bridge 9.9.9", broken = false } = {}) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, broken ? "#!/bin/sh\necho 'exec format error' >&2\nexit 126\n" : `#!/bin/sh\necho '${version}'\n`);
  chmodSync(file, 0o755);
}

/**
 * A copy of scripts/prepare.sh in a scratch plugin folder, run with a PATH without cargo.
 * `layout`: "checkout" (a Cargo.toml: a source checkout) or "npm" (the folder is
 * node_modules/@agent-bridge/paseo of an npm install). `localBinary` puts a binary at plugin.json's
 * main, `platformBinary` ("ok" | "broken" | "missing") installs this machine's platform package
 * next to the plugin the way npm hoists it.
 */
function runPrepare({ layout = "checkout", localBinary = false, platformBinary } = {}) {
  const root = mkdtempSync(path.join(tmpdir(), "agent-bridge-prepare-"));
  const dir = layout === "npm" ? path.join(root, "node_modules/@agent-bridge/paseo") : root;
  mkdirSync(path.join(dir, "scripts"), { recursive: true });
  copyFileSync(path.join(repoRoot, "scripts/prepare.sh"), path.join(dir, "scripts/prepare.sh"));
  if (layout === "checkout") writeFileSync(path.join(dir, "Cargo.toml"), "[workspace]\n");
  if (localBinary) fakeBinary(path.join(dir, "target/release/agent-bridge"));
  const platformDir = path.join(root, "node_modules/@agent-bridge", HOST);
  if (platformBinary) {
    mkdirSync(platformDir, { recursive: true });
    writeFileSync(path.join(platformDir, "package.json"), "{}\n");
    if (platformBinary !== "missing") {
      fakeBinary(path.join(platformDir, "bin", EXE), { broken: platformBinary === "broken" });
    }
  }
  const bin = path.join(root, "bin");
  mkdirSync(bin);
  for (const tool of ["sh", "find", "head", "dirname", "printf", "uname"]) {
    const found = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
    if (found.startsWith("/")) symlinkSync(found, path.join(bin, tool));
  }
  const run = spawnSync(path.join(bin, "sh"), ["scripts/prepare.sh"], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: bin, HOME: root },
  });
  return { ...run, platformDir };
}

test("prepare.sh in a checkout without cargo: fails clearly without a binary, keeps a prebuilt one", () => {
  const missing = runPrepare();
  assert.equal(missing.status, 1, missing.stderr);
  assert.match(missing.stderr, /no binary at target\/release\/agent-bridge and cargo is not installed/);
  const prebuilt = runPrepare({ localBinary: true });
  assert.equal(prebuilt.status, 0, prebuilt.stderr);
  assert.match(prebuilt.stderr, /cargo not found; using the prebuilt target\/release\/agent-bridge/);
});

test("prepare.sh in an npm install without cargo: uses the platform package, builds nothing", () => {
  const packaged = runPrepare({ layout: "npm", platformBinary: "ok" });
  assert.equal(packaged.status, 0, packaged.stderr);
  const binary = path.join(packaged.platformDir, "bin", EXE);
  assert.ok(
    packaged.stderr.includes(`using agent-bridge 9.9.9 from @agent-bridge/${HOST} (${binary})`),
    packaged.stderr,
  );
  // The platform package wins over a local build, as in the adapter.
  const both = runPrepare({ layout: "npm", platformBinary: "ok", localBinary: true });
  assert.equal(both.status, 0, both.stderr);
  assert.match(both.stderr, /from @agent-bridge\//);
});

test("prepare.sh in an npm install: a missing platform package or binary fails, naming where it looked", () => {
  const none = runPrepare({ layout: "npm" });
  assert.equal(none.status, 1, none.stderr);
  assert.match(none.stderr, new RegExp(`@agent-bridge/${HOST} is not installed \\(looked in: `));
  assert.ok(none.stderr.includes(path.join(none.platformDir)), none.stderr);
  assert.match(none.stderr, /node_modules\/@agent-bridge\/paseo\/node_modules\/@agent-bridge\//);
  const empty = runPrepare({ layout: "npm", platformBinary: "missing" });
  assert.equal(empty.status, 1, empty.stderr);
  assert.match(empty.stderr, new RegExp(`has no bin/${EXE}`));
  const broken = runPrepare({ layout: "npm", platformBinary: "broken" });
  assert.equal(broken.status, 1, broken.stderr);
  assert.match(broken.stderr, /does not run on this machine: exec format error/);
});

test("plugin.json carries the workspace version; the platform list follows the adapter's naming", async () => {
  assert.equal(readPluginJson().version, workspaceVersion());
  const { platformPackageName } = adapterModule("binary-location");
  const { main, platforms } = JSON.parse(read("npm/platforms.json"));
  assert.match(main, /^@agent-bridge\//);
  for (const p of platforms) {
    assert.equal(p.package, platformPackageName({ platform: p.os, arch: p.cpu }));
  }
  assert.deepEqual(
    platforms.map((p) => `${p.os}-${p.cpu}`).sort(),
    ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-x64"],
  );
  const workflow = read(".github/workflows/release.yml");
  for (const p of platforms) {
    assert.ok(workflow.includes(`target: ${p.target}`), `release.yml builds ${p.target}`);
    assert.ok(workflow.includes(`id: ${p.os}-${p.cpu}`), `release.yml packs ${p.os}-${p.cpu}`);
  }
});

test("loads the way Paseo does: esbuild bundle, eval, no __dirname, folder from Paseo's config", async (t) => {
  requireBinary();
  // Paseo's plugin process runs with the daemon's cwd and knows the folder only from config.json.
  const home = mkdtempSync(path.join(tmpdir(), "agent-bridge-paseo-home-"));
  writeFileSync(
    path.join(home, "config.json"),
    JSON.stringify({
      pluginsEnabled: true,
      plugins: { "agent-bridge": { source: "directory", path: repoRoot, enabled: true } },
    }),
  );
  const saved = { cwd: process.cwd(), env: { ...process.env } };
  process.chdir(home);
  delete process.env.AGENT_BRIDGE_PLUGIN_DIR;
  process.env.PASEO_HOME = home;
  process.env.AGENT_BRIDGE_BIN = bridgeBinary;
  process.env.AGENT_BRIDGE_DATA_DIR = path.join(home, "data");
  process.env.AGENT_BRIDGE_DEMO = "1";
  let cleanup = async () => {};
  t.after(async () => {
    await cleanup();
    process.chdir(saved.cwd);
    for (const key of Object.keys(process.env)) if (!(key in saved.env)) delete process.env[key];
    Object.assign(process.env, saved.env);
  });

  const exports = loadLikePaseo(repoRoot);
  const server = fakeServer();
  cleanup = exports.default(server);
  assert.equal(typeof cleanup, "function");
  assert.deepEqual(
    server.providers.map((p) => p.id),
    readPluginJson().providers.map((p) => p.id),
  );

  const connection = await server.providers.find((p) => p.id === "demo").connect(connectRequest());
  const events = recorder(connection);
  await connection.send({ type: "catalog", requestId: "bundled" });
  await events.waitFor((e) => e.type === "catalog" && e.requestId === "bundled", "catalog");
  const [pid] = bridgeChildren();
  assert.ok(pid);
  assert.equal(readFileSync(`/proc/${pid}/cwd/plugin.json`, "utf8"), read("plugin.json"), "cwd is the plugin folder");
  await cleanup();
  cleanup = async () => {};
  assert.equal(isAlive(pid), false);
});
