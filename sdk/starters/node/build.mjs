// Bundles src/bot.js, its dependencies and the protocol's .proto text into one file.
// Usage (build.sh runs it): node build.mjs OUT_FILE PROTO_FILE
import { build } from "esbuild";
import { readFileSync } from "node:fs";

const [outfile, protoFile] = process.argv.slice(2);
const protoText = readFileSync(protoFile, "utf8");

// src/arena-proto.js reads the .proto from the repository at run time; in the bundle the module
// is the .proto's text itself, so the bot needs no file but bot.js.
const embedProto = {
  name: "embed-proto",
  setup(build) {
    build.onResolve({ filter: /^\.\/arena-proto$/ }, () => ({ path: "arena.proto", namespace: "proto" }));
    build.onLoad({ filter: /.*/, namespace: "proto" }, () => ({ contents: protoText, loader: "text" }));
  },
};

await build({
  entryPoints: ["src/bot.js"],
  outfile,
  bundle: true,
  platform: "node",
  target: "node18",
  format: "cjs",
  minify: true,
  legalComments: "none",
  plugins: [embedProto],
  logLevel: "warning",
});
