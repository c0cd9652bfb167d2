// Stages one npm package folder for scripts/package.sh (Node built-ins only):
//
//   node scripts/npm-stage.mjs main DIR                 the Paseo plugin (npm/platforms.json "main")
//   node scripts/npm-stage.mjs platform ID BINARY DIR   ID's platform package holding BINARY
//   node scripts/npm-stage.mjs host                     prints this machine's ID (linux-x64, ...)
//   node scripts/npm-stage.mjs version                  prints the version of every package
//
// Every version is the workspace version of Cargo.toml; the platform list is npm/platforms.json.

import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const read = (file) => readFileSync(path.join(root, file), "utf8");
const { main, platforms } = JSON.parse(read("npm/platforms.json"));

/** A key of Cargo.toml's `[workspace.package]`, e.g. `version`. */
function workspacePackage(key) {
  const section = read("Cargo.toml").split(/^\[/m).find((s) => s.startsWith("workspace.package]"));
  const value = section?.match(new RegExp(`^${key}\\s*=\\s*"([^"]+)"`, "m"))?.[1];
  if (!value) throw new Error(`Cargo.toml has no [workspace.package] ${key}`);
  return value;
}

const version = workspacePackage("version");
const license = workspacePackage("license");
const idOf = (platform) => `${platform.os}-${platform.cpu}`;

function writeJson(file, value) {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * The files of the Paseo plugin, as Paseo loads them (it compiles the TypeScript itself), and
 * of the Agentty plugin (its manifest and the launcher it names as `main`).
 */
const PLUGIN_FILES = [
  "paseo-plugin.json",
  "plugin.json",
  "index.server.ts",
  "server/",
  "scripts/prepare.sh",
  "agentty-plugin.json",
  "scripts/agentty.sh",
  "icon.svg",
  "README.md",
  "docs/install.md",
  "docs/agentty.md",
];

function stageMain(dir) {
  for (const manifest of ["plugin.json", "agentty-plugin.json"]) {
    const declared = JSON.parse(read(manifest)).version;
    if (declared !== version) {
      throw new Error(`${manifest} has version ${declared}, the workspace ${version}: make them equal`);
    }
  }
  for (const file of PLUGIN_FILES) {
    const target = path.join(dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    cpSync(path.join(root, file), target, { recursive: true });
  }
  // Agentty runs `main` itself: it must stay executable in the tarball.
  chmodSync(path.join(dir, "scripts/agentty.sh"), 0o755);
  writeJson(path.join(dir, "package.json"), {
    name: main,
    version,
    description: JSON.parse(read("paseo-plugin.json")).description,
    license,
    keywords: [
      "paseo",
      "paseo-plugin",
      "agentty",
      "agentty-plugin",
      "claude-code",
      "codex",
      "acp",
      "coding-agent",
    ],
    files: PLUGIN_FILES,
    optionalDependencies: Object.fromEntries(platforms.map((p) => [p.package, version])),
  });
}

function stagePlatform(id, binary, dir) {
  const platform = platforms.find((p) => idOf(p) === id);
  if (!platform) {
    throw new Error(`no platform ${id} in npm/platforms.json (${platforms.map(idOf).join(", ")})`);
  }
  const exe = platform.os === "win32" ? "agent-bridge.exe" : "agent-bridge";
  mkdirSync(path.join(dir, "bin"), { recursive: true });
  copyFileSync(binary, path.join(dir, "bin", exe));
  chmodSync(path.join(dir, "bin", exe), 0o755);
  const description = `The agent-bridge binary for ${id}, installed by ${main}.`;
  writeJson(path.join(dir, "package.json"), {
    name: platform.package,
    version,
    description,
    license,
    os: [platform.os],
    cpu: [platform.cpu],
    files: ["bin/"],
    preferUnplugged: true,
  });
  writeFileSync(path.join(dir, "README.md"), `# ${platform.package}\n\n${description}\n`);
}

const [command, ...args] = process.argv.slice(2);
if (command === "main" && args.length === 1) stageMain(args[0]);
else if (command === "platform" && args.length === 3) stagePlatform(args[0], args[1], args[2]);
else if (command === "host" && args.length === 0) console.log(`${process.platform}-${process.arch}`);
else if (command === "version" && args.length === 0) console.log(version);
else {
  console.error("usage: npm-stage.mjs main DIR | platform ID BINARY DIR | host | version");
  process.exit(2);
}
