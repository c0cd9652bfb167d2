// Compiles a plugin's `index.server.ts` the way Paseo's daemon does
// (`packages/server/src/server/plugins/compiler.ts`, read at 02d6475f and 7c20d4ca): the entry
// must have exactly one default export, a function with one named context parameter and a block
// body; esbuild bundles it from stdin (loader `tsx`, resolveDir the plugin folder, format `cjs`,
// platform `node`, target `node20`, tree shaking, the SDK specifiers and `zod` external, React
// and React Native stubbed as unused platform modules on the server), and the output is wrapped
// as a CommonJS factory `(function(require) { ... return module.exports; })`, with esbuild's lazy
// interop getters made eager as Paseo does.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** The module specifiers Paseo supplies at runtime (`plugin-sdk-specifiers.ts`). */
export const SDK_SPECIFIERS = [
  "@getpaseo/plugin",
  "@getpaseo/plugin/server",
  "@getpaseo/plugin/server/provider",
  "@getpaseo/plugin/server/acp",
  "@getpaseo/plugin/server/forge-toolkit",
  "@getpaseo/plugin/server/usage",
  "@getpaseo/plugin/client",
  "@getpaseo/plugin/client/ui",
  "@getpaseo/plugin/client/react-native",
];

/** Checks the entry's default export the way Paseo's compiler does (it parses with Babel). */
export function checkEntry(source, fileName = "index.server.ts") {
  const ts = require("typescript");
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const defaults = file.statements.filter(
    (statement) =>
      ts.isExportAssignment(statement) ||
      (ts.canHaveModifiers(statement) &&
        (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)),
  );
  if (defaults.length !== 1) throw new Error("Plugin entry point must have exactly one default export function");
  let fn = defaults[0];
  if (ts.isExportAssignment(fn)) fn = fn.expression;
  const isFunction = ts.isFunctionDeclaration(fn) || ts.isFunctionExpression(fn) || ts.isArrowFunction(fn);
  if (!isFunction) throw new Error("Plugin default export must be a function receiving its context");
  if (fn.parameters.length !== 1 || !ts.isIdentifier(fn.parameters[0].name)) {
    throw new Error("Plugin default export must receive one named context parameter");
  }
  if (!fn.body || !ts.isBlock(fn.body)) throw new Error("Plugin default export must have a block body");
}

function unusedPlatformModules() {
  return {
    name: "paseo-plugin-server-unused-platform-modules",
    setup(build) {
      build.onResolve({ filter: /^(@tanstack\/react-query|react|react\/jsx-runtime|react-native)$/ }, (args) => ({
        path: args.path,
        namespace: "paseo-unused-platform-module",
        sideEffects: false,
      }));
      build.onLoad({ filter: /.*/, namespace: "paseo-unused-platform-module" }, () => ({
        contents: "module.exports = {};",
        loader: "js",
      }));
    },
  };
}

/** The server bundle of the plugin in `dir`, as the string Paseo sends its plugin process. */
export async function compileServerBundle(dir) {
  const { build } = require("esbuild");
  const entry = path.join(dir, "index.server.ts");
  const source = readFileSync(entry, "utf8");
  checkEntry(source, entry);
  const result = await build({
    stdin: { contents: source, loader: "tsx", resolveDir: dir, sourcefile: entry },
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    external: [...SDK_SPECIFIERS, "zod"],
    plugins: [unusedPlatformModules()],
    logLevel: "silent",
    treeShaking: true,
    write: false,
  });
  const output = result.outputFiles[0]?.text;
  if (!output) throw new Error("Plugin server compilation produced no output");
  const eager = output.replaceAll("get: () => from[key]", "value: from[key]");
  return `(function(require) {\nconst module = { exports: {} };\nconst exports = module.exports;\n${eager}\nreturn module.exports;\n})`;
}
