// The adapter's types match the real SDK's shapes: `tsc --strict` (plus exact optional property
// types) checks tests/paseo-host/types/check.ts, which assigns the adapter's entry, registration
// and connection to the SDK's types transcribed in types/sdk/*.d.ts; and neither the adapter nor
// the transcription uses `any`.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { here, repoRoot } from "./harness.mjs";

const require = createRequire(import.meta.url);

test("the adapter's entry, registrations and connections are assignable to the SDK's types", () => {
  const ts = require("typescript");
  const sdk = path.join(here, "types", "sdk");
  const roots = [path.join(here, "types", "check.ts"), ...readdirSync(sdk).map((f) => path.join(sdk, f))];
  const program = ts.createProgram(roots, {
    noEmit: true,
    strict: true,
    exactOptionalPropertyTypes: true,
    noImplicitReturns: true,
    isolatedModules: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: ["node"],
    typeRoots: [path.join(here, "node_modules", "@types")],
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${path.relative(repoRoot, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : "";
    return where + ts.flattenDiagnosticMessageText(d.messageText, "\n");
  });
  assert.deepEqual(diagnostics, []);
});

test("no `any` in the adapter nor in the transcribed SDK declarations", () => {
  const files = [
    "index.server.ts",
    ...readdirSync(path.join(repoRoot, "server")).map((f) => `server/${f}`),
    ...readdirSync(path.join(here, "types", "sdk")).map((f) => `tests/paseo-host/types/sdk/${f}`),
    "tests/paseo-host/types/check.ts",
  ];
  const ts = require("typescript");
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(path.join(repoRoot, file), "utf8"), ts.ScriptTarget.Latest, true);
    const found = [];
    const visit = (node) => {
      if (node.kind === ts.SyntaxKind.AnyKeyword) found.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
      ts.forEachChild(node, visit);
    };
    visit(source);
    assert.deepEqual(found, [], `${file} uses \`any\` on lines ${found.join(", ")}`);
  }
});
