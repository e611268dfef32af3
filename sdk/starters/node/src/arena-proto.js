// The protocol's .proto text, for running src/bot.js straight from the repository
// (`node src/bot.js`). The build (build.mjs) replaces this module with the text of the .proto
// itself, so the bundled dist/bot.js needs no file next to it.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const protoPath =
  process.env.ARENA_PROTO || path.join(__dirname, "..", "..", "..", "..", "proto", "arena", "wire", "v1", "arena.proto");

module.exports = fs.readFileSync(protoPath, "utf8");
