// A read-only npm registry on 127.0.0.1 serving a folder of `npm pack` tarballs, so a test can
// install packages by name and version, as from npmjs.org, without publishing them. Each
// tarball's package.json becomes its packument; every other name is a 404. It records what npm
// asked for.

import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";

function manifestOf(tarball) {
  const out = spawnSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" });
  if (out.status !== 0) throw new Error(`cannot read package.json of ${tarball}: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

/** Serves every `*.tgz` of `dir`; resolves to `{ url, requests, close() }`. */
export async function startRegistry(dir) {
  const packages = new Map();
  const tarballs = new Map();
  const requests = [];
  const server = createServer((request, response) => {
    const url = decodeURIComponent(request.url ?? "/");
    requests.push(url);
    const tarball = tarballs.get(url);
    if (tarball) {
      response.writeHead(200, { "content-type": "application/octet-stream" });
      response.end(tarball);
      return;
    }
    const packument = packages.get(url.slice(1));
    if (packument) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(packument));
      return;
    }
    response.writeHead(404, { "content-type": "application/json" });
    response.end('{"error":"Not found"}');
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".tgz"))) {
    const bytes = readFileSync(path.join(dir, file));
    const manifest = manifestOf(path.join(dir, file));
    const tarballPath = `/-/${file}`;
    tarballs.set(tarballPath, bytes);
    const version = {
      ...manifest,
      _id: `${manifest.name}@${manifest.version}`,
      dist: {
        tarball: new URL(tarballPath.slice(1), url).href,
        integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
        shasum: createHash("sha1").update(bytes).digest("hex"),
      },
    };
    const packument = packages.get(manifest.name) ?? {
      name: manifest.name,
      "dist-tags": {},
      versions: {},
    };
    packument.versions[manifest.version] = version;
    packument["dist-tags"].latest = manifest.version;
    packages.set(manifest.name, packument);
  }
  return {
    url,
    names: [...packages.keys()],
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}
